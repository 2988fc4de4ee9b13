#include "engine/sim/trace_export.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace shardscope {

std::string chromeTraceJson(const SimResult& r, const Graph& graph, const Cluster& cluster, const Mesh& mesh) {
    using nlohmann::json;
    (void)graph;
    json events = json::array();
    const int shown = std::min(r.devices, cluster.devicesPerNode());
    for (int d = 0; d < shown; ++d) {
        events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", d}, {"tid", 0},
                          {"args", {{"name", "node 0 / rank " + std::to_string(d)}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", d}, {"tid", 0}, {"args", {{"name", "compute"}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", d}, {"tid", 1}, {"args", {{"name", "communication"}}}});
    }
    int flow = 0;
    for (const SimEvent& e : r.events) {
        const int tid = e.stream == Stream::Compute ? 0 : 1;
        const double ts = e.start * 1e6, dur = e.duration * 1e6;
        for (int d = 0; d < shown; ++d) {
            json args{{"op", e.name}, {"phase", std::string(phaseName(e.phase))}};
            if (e.collective) {
                args["bytes"] = e.bytes;
                args["axes"] = mesh.setName(e.axes);
                args["kind"] = std::string(collectiveName(e.kind));
            }
            events.push_back({{"ph", "X"}, {"name", e.name}, {"cat", e.collective ? "comm" : "compute"}, {"pid", d},
                              {"tid", tid}, {"ts", ts}, {"dur", dur}, {"args", args}});
        }
        // One flow from the first rank to each other participant shown.
        if (e.collective && shown > 1) {
            ++flow;
            events.push_back({{"ph", "s"}, {"name", "collective"}, {"cat", "flow"}, {"id", flow}, {"pid", 0},
                              {"tid", tid}, {"ts", ts}});
            for (int d = 1; d < shown; ++d)
                events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "collective"}, {"cat", "flow"}, {"id", flow},
                                  {"pid", d}, {"tid", tid}, {"ts", ts}});
        }
    }
    for (const MemorySample& m : r.memory)
        for (int d = 0; d < shown; ++d)
            events.push_back({{"ph", "C"}, {"name", "memory"}, {"pid", d}, {"tid", 0}, {"ts", m.time * 1e6},
                              {"args", {{"bytes", m.bytes}}}});
    return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

std::string eventsJson(const SimResult& r, const Mesh& mesh) {
    using nlohmann::json;
    json list = json::array();
    for (const SimEvent& e : r.events)
        list.push_back({{"device", "all"},
                        {"stream", e.stream == Stream::Compute ? "compute" : "communication"},
                        {"op", e.name},
                        {"phase", std::string(phaseName(e.phase))},
                        {"kind", e.collective ? std::string(collectiveName(e.kind)) : std::string("compute")},
                        {"start_s", e.start},
                        {"duration_s", e.duration},
                        {"bytes", e.bytes},
                        {"axes", e.collective ? mesh.setName(e.axes) : std::string("-")},
                        {"microbatch", e.microbatch}});
    return list.dump(1) + "\n";
}

} // namespace shardscope
