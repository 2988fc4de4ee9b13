#include "engine/io/cluster_file.h"

#include "engine/cluster/cluster_presets.h"
#include "engine/io/json_fields.h"
#include "engine/util/error.h"

namespace shardscope {

using nlohmann::json;

/// The reading itself; parseClusterJson turns stray JSON type errors into input errors.
static Cluster parseClusterJsonUnguarded(const std::string& text, const std::string& source) {
    const JsonFields in(source);
    const json doc = in.parse(text);
    // Version 2 adds the device's overlap_slowdown; version 3 its fp8_efficiency, mx_scaling and fp4
    // peak, and a level's capacity; version 4 its attention_dropout_efficiency.
    const long long version = in.checkHeader(doc, "shardscope-cluster", 4);
    in.checkKnown(doc, "", {"format", "version", "name", "device", "levels"});
    Cluster c;
    c.name = in.string(doc, "", "name");
    const json& d = in.object(doc, "", "device");
    if (version >= 4)
        in.checkKnown(d, "device",
                      {"name", "peak_flops", "memory_bytes", "memory_bandwidth", "memory_efficiency", "efficiency",
                       "attention_efficiency", "attention_dropout_efficiency", "launch_floor_s", "overlap_slowdown",
                       "fp8_efficiency", "mx_scaling", "fp8_any_layout"});
    else if (version == 3)
        in.checkKnown(d, "device",
                      {"name", "peak_flops", "memory_bytes", "memory_bandwidth", "memory_efficiency", "efficiency",
                       "attention_efficiency", "launch_floor_s", "overlap_slowdown", "fp8_efficiency", "mx_scaling",
                       "fp8_any_layout"});
    else if (version == 2)
        in.checkKnown(d, "device",
                      {"name", "peak_flops", "memory_bytes", "memory_bandwidth", "memory_efficiency", "efficiency",
                       "attention_efficiency", "launch_floor_s", "overlap_slowdown"});
    else
        in.checkKnown(d, "device",
                      {"name", "peak_flops", "memory_bytes", "memory_bandwidth", "memory_efficiency", "efficiency",
                       "attention_efficiency", "launch_floor_s"});
    c.device.name = in.string(d, "device", "name");
    const json& peaks = in.object(d, "device", "peak_flops");
    for (auto it = peaks.begin(); it != peaks.end(); ++it) {
        if (version >= 3 && it.key() == "fp4") {
            c.device.fp4Flops = in.number(peaks, "device.peak_flops", "fp4");
            continue;
        }
        const auto dt = parseDType(it.key());
        if (!dt)
            in.fail("device.peak_flops." + it.key(), "unknown dtype");
        c.device.peakFlops[*dt] = in.number(peaks, "device.peak_flops", it.key().c_str());
    }
    c.device.memoryBytes = in.number(d, "device", "memory_bytes");
    c.device.memoryBandwidth = in.number(d, "device", "memory_bandwidth");
    if (d.contains("memory_efficiency"))
        c.device.memoryEfficiency = in.number(d, "device", "memory_efficiency");
    if (d.contains("efficiency"))
        c.device.efficiency = in.number(d, "device", "efficiency");
    // Without its own figure, FP8 GEMMs reach the fraction of their peak that BF16 GEMMs reach of theirs.
    c.device.fp8Efficiency = d.contains("fp8_efficiency") ? in.number(d, "device", "fp8_efficiency") : c.device.efficiency;
    if (d.contains("mx_scaling"))
        c.device.mxScaling = in.boolean(d, "device", "mx_scaling");
    if (d.contains("fp8_any_layout"))
        c.device.fp8AnyLayout = in.boolean(d, "device", "fp8_any_layout");
    if (d.contains("attention_efficiency"))
        c.device.attentionEfficiency = in.number(d, "device", "attention_efficiency");
    // Without its own figure, dropout inside the fused attention kernel costs nothing extra.
    c.device.attentionDropoutEfficiency = d.contains("attention_dropout_efficiency")
                                              ? in.number(d, "device", "attention_dropout_efficiency")
                                              : c.device.attentionEfficiency;
    if (d.contains("launch_floor_s"))
        c.device.launchFloor = in.number(d, "device", "launch_floor_s");
    if (d.contains("overlap_slowdown"))
        c.device.overlapSlowdown = in.number(d, "device", "overlap_slowdown");
    const json& levels = in.array(doc, "", "levels");
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const std::string path = "levels[" + std::to_string(i) + "]";
        const json& l = levels[i];
        if (!l.is_object())
            in.fail(path, "must be an object");
        if (version >= 3)
            in.checkKnown(l, path, {"name", "size", "bandwidth", "latency_s", "efficiency", "base_latency_s", "capacity"});
        else
            in.checkKnown(l, path, {"name", "size", "bandwidth", "latency_s", "efficiency", "base_latency_s"});
        LinkLevel level;
        level.name = in.string(l, path, "name");
        const long long size = in.integer(l, path, "size");
        if (size < 1 || size > 1000000)
            in.fail(path + ".size", "must be between 1 and 1000000");
        level.size = static_cast<int>(size);
        level.bandwidth = in.number(l, path, "bandwidth");
        level.latency = in.number(l, path, "latency_s");
        if (l.contains("efficiency"))
            level.efficiency = in.number(l, path, "efficiency");
        if (l.contains("base_latency_s"))
            level.baseLatency = in.number(l, path, "base_latency_s");
        if (l.contains("capacity")) {
            const long long capacity = in.integer(l, path, "capacity");
            if (capacity < 0 || capacity > 1000000)
                in.fail(path + ".capacity", "must be between 0 (no limit) and 1000000");
            level.capacity = static_cast<int>(capacity);
        }
        c.levels.push_back(level);
    }
    c.validate(source);
    return c;
}

Cluster parseClusterJson(const std::string& text, const std::string& source) {
    return guardJson(source, [&] { return parseClusterJsonUnguarded(text, source); });
}

std::string clusterToJson(const Cluster& c) {
    json peaks = json::object();
    for (const auto& [d, v] : c.device.peakFlops)
        peaks[std::string(dtypeName(d))] = v;
    json levels = json::array();
    if (c.device.fp4Flops > 0)
        peaks["fp4"] = c.device.fp4Flops;
    for (const LinkLevel& l : c.levels) {
        json level{{"name", l.name},
                   {"size", l.size},
                   {"bandwidth", l.bandwidth},
                   {"latency_s", l.latency},
                   {"efficiency", l.efficiency},
                   {"base_latency_s", l.baseLatency}};
        if (l.capacity > 0)
            level["capacity"] = l.capacity;
        levels.push_back(level);
    }
    json doc{{"format", "shardscope-cluster"},
             {"version", 4},
             {"name", c.name},
             {"device",
              {{"name", c.device.name},
               {"peak_flops", peaks},
               {"memory_bytes", c.device.memoryBytes},
               {"memory_bandwidth", c.device.memoryBandwidth},
               {"memory_efficiency", c.device.memoryEfficiency},
               {"efficiency", c.device.efficiency},
               {"fp8_efficiency", c.device.fp8Efficiency},
               {"mx_scaling", c.device.mxScaling},
               {"fp8_any_layout", c.device.fp8AnyLayout},
               {"attention_efficiency", c.device.attentionEfficiency},
               {"attention_dropout_efficiency", c.device.attentionDropoutEfficiency},
               {"launch_floor_s", c.device.launchFloor},
               {"overlap_slowdown", c.device.overlapSlowdown}}},
             {"levels", levels}};
    return doc.dump(2) + "\n";
}

Cluster loadCluster(const std::string& spec, std::optional<int> nodes) {
    if (spec.empty())
        throw InputError("--cluster: missing (a preset name or a *.cluster.json file)");
    const bool isFile = spec.find('/') != std::string::npos || spec.find(".json") != std::string::npos;
    if (!isFile)
        return clusterPreset(spec, nodes.value_or(1));
    Cluster c = parseClusterJson(readTextFile(spec), spec);
    return nodes ? withNodes(std::move(c), *nodes) : c;
}

} // namespace shardscope
