#include "engine/io/file_kind.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace shardscope {

FileKind sniffFileKind(const std::string& path) {
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0)
        return FileKind::Model;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return FileKind::Unknown;
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (!doc.is_object())
        return FileKind::Unknown;
    if (doc.contains("model_type"))
        return FileKind::Model;
    const auto format = doc.find("format");
    if (format == doc.end() || !format->is_string())
        return FileKind::Unknown;
    const std::string f = format->get<std::string>();
    if (f == "shardscope-model")
        return FileKind::Model;
    if (f == "shardscope-cluster")
        return FileKind::Cluster;
    if (f == "shardscope-plan")
        return FileKind::Plan;
    if (f == "shardscope-tactics")
        return FileKind::Tactics;
    return FileKind::Unknown;
}

} // namespace shardscope
