#include "commands.h"

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/io/cluster_file.h"

#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runModels(const CliOptions& options, std::ostream& out) {
    nlohmann::json list = nlohmann::json::array();
    for (const ModelPreset& p : modelPresets()) {
        nlohmann::json params = nlohmann::json::object();
        for (const auto& [k, v] : p.params.items())
            params[k] = v;
        list.push_back({{"name", p.name}, {"family", p.family}, {"description", p.description}, {"params", params}});
        if (!options.json) {
            out << p.name << "  (" << p.family << ")  " << p.description << "\n   ";
            for (const auto& [k, v] : p.params.items())
                out << " " << k << "=" << v;
            out << "\n";
        }
    }
    if (options.json)
        out << list.dump(2) << "\n";
    return 0;
}

int runClusters(const CliOptions& options, std::ostream& out) {
    nlohmann::json list = nlohmann::json::array();
    for (const ClusterPresetInfo& info : clusterPresets()) {
        const Cluster c = clusterPreset(info.name, 1);
        list.push_back(nlohmann::json::parse(clusterToJson(c)));
        if (!options.json)
            out << info.name << "  " << info.description << "\n    parameters: nodes (default 1, set with --nodes)\n";
    }
    if (options.json)
        out << list.dump(2) << "\n";
    return 0;
}

} // namespace shardscope::cli
