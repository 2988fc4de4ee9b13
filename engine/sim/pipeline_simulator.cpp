#include "engine/sim/pipeline_simulator.h"

#include "engine/sim/timeline_clock.h"

#include <algorithm>
#include <stdexcept>

namespace shardscope {

std::shared_ptr<const SimResult> simulatePipeline(const CostModel& model, const StepProgram& program,
                                                  const SimOptions& options, std::stop_token stop) {
    const Cluster& cluster = model.cluster();
    const Mesh& mesh = model.mesh();
    const std::size_t P = std::size_t(program.stages);
    const int devices = mesh.deviceCount();
    const int perStage = devices / int(P);

    auto result = std::make_shared<SimResult>();
    result->devices = devices;
    result->classOfDevice.resize(std::size_t(devices));
    for (int d = 0; d < devices; ++d)
        result->classOfDevice[std::size_t(d)] = d / perStage;
    result->classes.resize(P);
    std::vector<CommModel> comm;
    std::vector<TimelineClock> clock(P);
    std::vector<std::vector<int>> order(P), streams[2];
    streams[0].resize(P);
    streams[1].resize(P);
    for (std::size_t s = 0; s < P; ++s) {
        comm.emplace_back(cluster, mesh, int(s) * perStage);
        DeviceTimeline& line = result->classes[s];
        for (int d = 0; d < perStage; ++d)
            line.devices.push_back(int(s) * perStage + d);
        const double resident = program.staticBytes[s] + program.workspace[s];
        line.memory.push_back({0, resident});
        clock[s].peak = resident;
    }
    for (const SimTask& t : program.tasks) {
        order[std::size_t(t.stage)].push_back(t.event.task);
        streams[static_cast<std::size_t>(t.stream)][std::size_t(t.stage)].push_back(t.event.task);
    }
    std::vector<double> ends(program.tasks.size(), -1);
    std::vector<LevelBytes> levelBytes(P);
    std::vector<StageSends> sends(P);
    std::vector<double> computeBusy(P, 0);

    auto ready = [&](const SimTask& t) {
        return std::all_of(t.deps.begin(), t.deps.end(), [&](int d) { return ends[std::size_t(d)] >= 0; });
    };
    auto run = [&](const SimTask& t) {
        const std::size_t s = std::size_t(t.stage);
        TimelineClock& c = clock[s];
        DeviceTimeline& line = result->classes[s];
        const auto stream = static_cast<std::size_t>(t.stream);
        SimEvent e = t.event;
        e.start = c.streamFree[stream];
        for (int d : t.deps)
            e.start = std::max(e.start, ends[std::size_t(d)]);
        if (!options.overlap)
            e.start = std::max(e.start, c.last);
        if (t.stream == Stream::Comm) {
            e.duration = timeCommTask(comm[s], t, levelBytes[s], &sends[s]);
            line.commBusy += e.duration;
        } else {
            computeBusy[s] += e.duration;
        }
        const double end = e.start + e.duration;
        ends[std::size_t(t.event.task)] = end;
        c.streamFree[stream] = end;
        c.last = std::max(c.last, end);
        recordMemory(t, end, program.staticBytes[s] + program.workspace[s], c, line);
        if (e.duration > 0)
            line.events.push_back(std::move(e));
    };

    // Each stage issues in order: with overlap, per stream; without, one task after another.
    std::vector<std::size_t> next[2];
    next[0].assign(P, 0);
    next[1].assign(P, 0);
    std::size_t done = 0;
    bool progress = true;
    while (progress && done < program.tasks.size()) {
        progress = false;
        for (std::size_t s = 0; s < P; ++s)
            for (std::size_t k = 0; k < (options.overlap ? 2u : 1u); ++k) {
                const std::vector<int>& list = options.overlap ? streams[k][s] : order[s];
                std::size_t& at = next[k][s];
                while (at < list.size() && ready(program.tasks[std::size_t(list[at])])) {
                    run(program.tasks[std::size_t(list[at++])]);
                    progress = true;
                    if (++done % 4096 == 0 && stop.stop_requested()) {
                        result->cancelled = true;
                        progress = false;
                        break;
                    }
                }
                if (result->cancelled)
                    break;
            }
        if (result->cancelled)
            break;
    }
    if (!result->cancelled && done < program.tasks.size())
        throw std::logic_error("pipeline simulation: " + std::to_string(program.tasks.size() - done) +
                               " tasks wait for each other");
    for (std::size_t s = 0; s < P; ++s) {
        DeviceTimeline& line = result->classes[s];
        closeTimeline(clock[s], line);
        result->stepTime = std::max(result->stepTime, line.stepTime);
        result->commBusy = std::max(result->commBusy, line.commBusy);
        result->computeBusy = std::max(result->computeBusy, computeBusy[s]);
        result->peakMemory = std::max(result->peakMemory, clock[s].peak);
    }
    result->peakMemoryTime = result->classes.front().peakMemoryTime;
    result->exposedComm = result->stepTime - result->computeBusy;
    result->traffic = linkTraffic(cluster, mesh, result->classOfDevice, levelBytes, sends);
    return result;
}

} // namespace shardscope
