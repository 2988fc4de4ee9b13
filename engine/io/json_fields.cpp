#include "engine/io/json_fields.h"

#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace shardscope {

nlohmann::json JsonFields::parse(const std::string& text) const {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // Turn the byte offset into a line number for the message.
        const std::size_t upTo = std::min<std::size_t>(e.byte, text.size());
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upTo), '\n');
        throw InputError(source_ + ": malformed JSON at line " + std::to_string(line) + " (byte " +
                         std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::exception& e) {
        // A number past double's range (1e999) and other values JSON allows but C++ cannot hold.
        std::string what = e.what();
        if (const std::size_t bracket = what.find("] "); bracket != std::string::npos)
            what = what.substr(bracket + 2);
        throw InputError(source_ + ": " + what.substr(0, 120));
    }
}

long long JsonFields::checkHeader(const nlohmann::json& doc, const std::string& format, long long latest) const {
    if (!doc.is_object())
        fail("", "the document must be a JSON object");
    const std::string f = string(doc, "", "format");
    if (f != format)
        fail("format", "expected '" + format + "', got '" + f + "'");
    const long long v = integer(doc, "", "version");
    if (v < 1 || v > latest)
        fail("version", "unsupported version " + std::to_string(v) + " (this build reads version" +
                            (latest == 1 ? std::string(" 1)") : "s 1 to " + std::to_string(latest) + ")"));
    return v;
}

void JsonFields::checkKnown(const nlohmann::json& obj, const std::string& path,
                            std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed)
            ok = ok || it.key() == a;
        if (!ok)
            fail(path.empty() ? it.key() : path + "." + it.key(), "unknown field");
    }
}

const nlohmann::json& JsonFields::field(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const std::string where = path.empty() ? key : path + "." + key;
    if (!obj.is_object() || !obj.contains(key))
        fail(where, "missing");
    return obj.at(key);
}

const nlohmann::json& JsonFields::object(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_object())
        fail(path.empty() ? key : path + "." + key, "must be an object");
    return v;
}

const nlohmann::json& JsonFields::array(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_array())
        fail(path.empty() ? key : path + "." + key, "must be an array");
    return v;
}

std::string JsonFields::string(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_string())
        fail(path.empty() ? key : path + "." + key, "must be a string");
    return v.get<std::string>();
}

double JsonFields::number(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_number())
        fail(path.empty() ? key : path + "." + key, "must be a number");
    return v.get<double>();
}

double JsonFields::numberIn(const nlohmann::json& obj, const std::string& path, const char* key, double low,
                            double high) const {
    const double v = number(obj, path, key);
    if (!(v >= low && v <= high)) {
        std::ostringstream range;
        range << "must be between " << low << " and " << high;
        fail(path.empty() ? key : path + "." + key, range.str());
    }
    return v;
}

long long JsonFields::integer(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_number_integer())
        fail(path.empty() ? key : path + "." + key, "must be an integer");
    return v.get<long long>();
}

bool JsonFields::boolean(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_boolean())
        fail(path.empty() ? key : path + "." + key, "must be true or false");
    return v.get<bool>();
}

void JsonFields::fail(const std::string& path, const std::string& what) const {
    if (path.empty())
        throw InputError(source_ + ": " + what);
    throw InputError(source_ + ": field '" + path + "': " + what);
}

std::string readTextFile(const std::string& path) {
    // A device (/dev/zero) or pipe never ends; a huge file is no model, cluster or plan.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw InputError(path + ": not a regular file (a directory, device or pipe)");
    if (!ec && std::filesystem::is_regular_file(status) &&
        std::filesystem::file_size(path, ec) > std::uintmax_t(kMaxJsonFileBytes))
        throw InputError(path + ": larger than the limit of " + withSeparators(kMaxJsonFileBytes >> 20) + " MiB");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot read the file");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace shardscope
