#include "engine/io/tactic_file.h"

#include <algorithm>

namespace shardscope {

using nlohmann::json;

namespace {

std::vector<std::string> names(const json& obj, const JsonFields& in, const std::string& path, const char* key) {
    std::vector<std::string> out;
    for (const json& v : in.array(obj, path, key)) {
        if (!v.is_string() || v.get<std::string>().empty())
            in.fail(path + "." + key, "must list names (strings)");
        out.push_back(v.get<std::string>());
    }
    return out;
}

std::string knownTactics() {
    std::string out;
    for (std::string_view n : tacticKindNames())
        out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

} // namespace

Tactic parseTactic(const json& obj, const JsonFields& in, const std::string& path,
                   std::initializer_list<const char*> extra) {
    if (!obj.is_object())
        in.fail(path, "must be an object such as {\"tactic\": \"batch\", \"axis\": \"data\"}");
    const std::string kindName = in.string(obj, path, "tactic");
    const auto kind = parseTacticKind(kindName);
    if (!kind)
        in.fail(path + ".tactic", "unknown tactic '" + kindName + "' (known: " + knownTactics() + ")");
    Tactic t;
    t.kind = *kind;
    std::vector<const char*> allowed{"tactic", "axis"};
    allowed.insert(allowed.end(), extra.begin(), extra.end());
    switch (t.kind) {
    case TacticKind::Batch:
        allowed.push_back("inputs");
        if (obj.contains("inputs"))
            t.inputs = names(obj, in, path, "inputs");
        break;
    case TacticKind::Zero: {
        allowed.push_back("stage");
        const long long stage = in.integer(obj, path, "stage");
        if (stage < 1 || stage > 3)
            in.fail(path + ".stage", "must be 1 (optimizer state), 2 (+ gradients) or 3 (+ parameters)");
        t.stage = static_cast<int>(stage);
        break;
    }
    case TacticKind::Shard: {
        allowed.push_back("tensors");
        allowed.push_back("dim");
        t.tensors = names(obj, in, path, "tensors");
        if (t.tensors.empty())
            in.fail(path + ".tensors", "names no tensor");
        const long long dim = in.integer(obj, path, "dim");
        if (dim < 0 || dim > 64)
            in.fail(path + ".dim", "must be a dimension index (0 for the first)");
        t.dim = static_cast<int>(dim);
        break;
    }
    case TacticKind::Auto: {
        allowed.push_back("algorithm");
        if (obj.contains("algorithm")) {
            const std::string name = in.string(obj, path, "algorithm");
            const auto algorithm = findAlgorithm(name);
            if (!algorithm)
                in.fail(path + ".algorithm", "unknown algorithm '" + name + "' (" + solverNamesText() + ")");
            t.algorithm = *algorithm;
        }
        break;
    }
    default:
        break;
    }
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; }))
            in.fail(path + "." + it.key(), "unknown field for tactic '" + kindName + "'");
    if (obj.contains("axis"))
        t.axis = in.string(obj, path, "axis");
    if (t.axis.empty() && t.kind != TacticKind::Auto)
        in.fail(path + ".axis", "missing: tactic '" + kindName + "' needs the mesh axis it acts on");
    return t;
}

/// The reading itself; parseTacticsJson turns stray JSON type errors into input errors.
static std::vector<Tactic> parseTacticsJsonUnguarded(const std::string& text, const std::string& source) {
    const JsonFields in(source);
    const json doc = in.parse(text);
    in.checkHeader(doc, "shardscope-tactics");
    in.checkKnown(doc, "", {"format", "version", "name", "tactics"});
    std::vector<Tactic> out;
    const json& list = in.array(doc, "", "tactics");
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(parseTactic(list[i], in, "tactics[" + std::to_string(i) + "]"));
    return out;
}

std::vector<Tactic> parseTacticsJson(const std::string& text, const std::string& source) {
    return guardJson(source, [&] { return parseTacticsJsonUnguarded(text, source); });
}

json tacticToJson(const Tactic& t) {
    json j{{"tactic", std::string(tacticKindName(t.kind))}};
    if (!t.axis.empty())
        j["axis"] = t.axis;
    switch (t.kind) {
    case TacticKind::Batch:
        if (!t.inputs.empty())
            j["inputs"] = t.inputs;
        break;
    case TacticKind::Zero:
        j["stage"] = t.stage;
        break;
    case TacticKind::Shard:
        j["tensors"] = t.tensors;
        j["dim"] = t.dim;
        break;
    case TacticKind::Auto:
        j["algorithm"] = std::string(algorithmName(t.algorithm));
        break;
    default:
        break;
    }
    return j;
}

std::string tacticsToJson(const std::vector<Tactic>& tactics, const std::string& name) {
    json list = json::array();
    for (const Tactic& t : tactics)
        list.push_back(tacticToJson(t));
    return json{{"format", "shardscope-tactics"}, {"version", 1}, {"name", name}, {"tactics", list}}.dump(1) + "\n";
}

std::vector<Tactic> loadTactics(const std::string& path) { return parseTacticsJson(readTextFile(path), path); }

} // namespace shardscope
