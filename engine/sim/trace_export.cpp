#include "engine/sim/trace_export.h"

#include "engine/sim/device_selection.h"
#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace shardscope {

namespace {

using nlohmann::json;

/// The trace thread of stream `s`: one per stream, compute first.
int threadOf(Stream s) { return static_cast<int>(s); }

json sliceArgs(const SimEvent& e, const Mesh& mesh) {
    json args{{"op", e.name}, {"phase", std::string(phaseName(e.phase))}, {"microbatch", e.microbatch}};
    if (e.collective) {
        args["bytes"] = e.bytes;
        args["axes"] = mesh.setName(e.axes);
        args["kind"] = std::string(collectiveName(e.kind));
    }
    return args;
}

/// Flow events from the first shown member of each collective's group to the other shown members.
void addFlows(const SimResult& r, const Mesh& mesh, const std::vector<int>& devices, json& events) {
    // Per class, its collective events by task (every class runs the same tasks).
    std::size_t tasks = 0;
    for (const DeviceTimeline& line : r.classes)
        for (const SimEvent& e : line.events)
            tasks = std::max(tasks, static_cast<std::size_t>(e.task) + 1);
    std::vector<std::vector<const SimEvent*>> byTask(r.classes.size(), std::vector<const SimEvent*>(tasks, nullptr));
    for (std::size_t c = 0; c < r.classes.size(); ++c)
        for (const SimEvent& e : r.classes[c].events)
            if (e.collective)
                byTask[c][static_cast<std::size_t>(e.task)] = &e;
    const std::vector<const SimEvent*>& first = byTask.front();
    int flow = 0;
    for (std::size_t task = 0; task < tasks; ++task) {
        if (!first[task])
            continue;
        std::map<int, std::vector<int>> byGroup;
        for (int d : devices)
            byGroup[mesh.groupLeader(d, first[task]->axes)].push_back(d);
        for (const auto& [leader, members] : byGroup) {
            if (members.size() < 2)
                continue;
            // Members of one group start the collective together.
            const SimEvent* e = byTask[static_cast<std::size_t>(r.classOfDevice[static_cast<std::size_t>(members.front())])][task];
            ++flow;
            const int tid = threadOf(e->stream);
            const double ts = e->start * 1e6;
            events.push_back({{"ph", "s"}, {"name", "collective"}, {"cat", "flow"}, {"id", flow},
                              {"pid", members.front()}, {"tid", tid}, {"ts", ts}});
            for (std::size_t i = 1; i < members.size(); ++i)
                events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "collective"}, {"cat", "flow"}, {"id", flow},
                                  {"pid", members[i]}, {"tid", tid}, {"ts", ts}});
        }
    }
}

} // namespace

void checkTraceBudget(const SimResult& r, const std::vector<int>& devices) {
    std::int64_t events = 0;
    for (int d : devices)
        events += std::int64_t(r.timeline(d).events.size() + r.timeline(d).memory.size());
    if (events > kMaxTraceEvents)
        throw InputError("--devices: " + withSeparators(std::int64_t(devices.size())) + " devices would write " +
                         withSeparators(events) + " events, over the limit of " + withSeparators(kMaxTraceEvents) +
                         " for a trace or event list; show fewer devices (--devices 0-7,64: devices of one class "
                         "repeat its events)");
}

std::string chromeTraceJson(const SimResult& r, const Cluster& cluster, const Mesh& mesh,
                            const std::vector<int>& devices) {
    checkTraceBudget(r, devices);
    json events = json::array();
    const int perNode = cluster.devicesPerNode();
    for (int d : devices) {
        std::string name = "node " + std::to_string(d / perNode) + " / rank " + std::to_string(d % perNode);
        if (mesh.pipelineStages() > 1) // the pipe axis is major-most: stage = device / devices per stage
            name += " / stage " + std::to_string(d / (mesh.deviceCount() / mesh.pipelineStages()));
        events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", d}, {"tid", 0}, {"args", {{"name", name}}}});
        events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", d}, {"tid", 0},
                          {"args", {{"sort_index", d}}}});
        for (Stream s : kStreams)
            events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", d}, {"tid", threadOf(s)},
                              {"args", {{"name", std::string(streamName(s))}}}});
        const DeviceTimeline& line = r.timeline(d);
        for (const SimEvent& e : line.events)
            events.push_back({{"ph", "X"}, {"name", e.name}, {"cat", e.collective ? "comm" : "compute"}, {"pid", d},
                              {"tid", threadOf(e.stream)}, {"ts", e.start * 1e6}, {"dur", e.duration * 1e6},
                              {"args", sliceArgs(e, mesh)}});
        for (const MemorySample& m : line.memory)
            events.push_back({{"ph", "C"}, {"name", "memory"}, {"pid", d}, {"tid", 0}, {"ts", m.time * 1e6},
                              {"args", {{"bytes", m.bytes}}}});
    }
    addFlows(r, mesh, devices, events);
    return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

std::string eventsJson(const SimResult& r, const Mesh& mesh, const std::vector<int>& devices) {
    checkTraceBudget(r, devices);
    json classes = json::array();
    for (std::size_t c = 0; c < r.classes.size(); ++c)
        classes.push_back({{"class", c},
                           {"devices", formatDeviceRanges(r.classes[c].devices)},
                           {"step_time_s", r.classes[c].stepTime}});
    json list = json::array();
    for (int d : devices) {
        const int c = r.classOfDevice[static_cast<std::size_t>(d)];
        for (const SimEvent& e : r.timeline(d).events)
            list.push_back({{"device", d},
                            {"class", c},
                            {"stream", std::string(streamName(e.stream))},
                            {"op", e.name},
                            {"phase", std::string(phaseName(e.phase))},
                            {"kind", e.collective ? std::string(collectiveName(e.kind)) : std::string("compute")},
                            {"start_s", e.start},
                            {"duration_s", e.duration},
                            {"bytes", e.bytes},
                            {"axes", e.collective ? mesh.setName(e.axes) : std::string("-")},
                            {"microbatch", e.microbatch}});
    }
    return json{{"devices", r.devices}, {"classes", classes}, {"events", list}}.dump(1) + "\n";
}

} // namespace shardscope
