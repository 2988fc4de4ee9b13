#include "engine/sim/simulator.h"

#include "engine/sim/device_classes.h"
#include "engine/sim/pipeline_simulator.h"
#include "engine/sim/timeline_clock.h"

#include <algorithm>
#include <map>

namespace shardscope {

std::size_t SimResult::eventCount() const {
    std::size_t n = 0;
    for (const DeviceTimeline& t : classes)
        n += t.events.size();
    return n;
}

namespace {

/// The clocks of one device class while the program runs.
struct ClassState : TimelineClock {
    std::vector<double> ends;    ///< per task
};

std::vector<AxisSet> communicatedSets(const StepProgram& program) {
    std::vector<AxisSet> sets;
    for (const SimTask& t : program.tasks)
        if (t.stream == Stream::Comm && std::find(sets.begin(), sets.end(), t.event.axes) == sets.end())
            sets.push_back(t.event.axes);
    return sets;
}

} // namespace

std::shared_ptr<const SimResult> simulate(const CostModel& model, const Plan& plan, const SimOptions& options,
                                          std::stop_token stop) {
    const StepProgram program = buildStepProgram(model, plan, options);
    if (program.stages > 1)
        return simulatePipeline(model, program, options, stop);
    const Cluster& cluster = model.cluster();
    const Mesh& mesh = model.mesh();
    const DeviceClasses classes = deviceClasses(cluster, mesh, communicatedSets(program));
    const std::size_t k = classes.size();
    std::vector<CommModel> comm;
    for (std::size_t c = 0; c < k; ++c)
        comm.emplace_back(cluster, mesh, classes.representative(c));

    auto result = std::make_shared<SimResult>();
    result->devices = mesh.deviceCount();
    result->classOfDevice = classes.classOf;
    result->classes.resize(k);
    std::vector<ClassState> state(k);
    std::vector<LevelBytes> levelBytes(k);
    const double resident = program.staticBytes.front() + program.workspace.front();
    for (std::size_t c = 0; c < k; ++c) {
        result->classes[c].devices = classes.members[c];
        result->classes[c].memory.push_back({0, resident});
        state[c].ends.resize(program.tasks.size());
        state[c].peak = resident;
    }

    // Lockstep over the tasks: every class runs the same program; a collective starts when the
    // classes of its group are all ready.
    std::vector<double> ready(k);
    std::size_t done = 0;
    for (const SimTask& t : program.tasks) {
        if (++done % 4096 == 0 && stop.stop_requested()) {
            result->cancelled = true;
            break;
        }
        const auto stream = static_cast<std::size_t>(t.stream);
        for (std::size_t c = 0; c < k; ++c) {
            double r = state[c].streamFree[stream];
            for (int d : t.deps)
                r = std::max(r, state[c].ends[static_cast<std::size_t>(d)]);
            if (!options.overlap)
                r = std::max(r, state[c].last);
            ready[c] = r;
        }
        for (std::size_t c = 0; c < k; ++c) {
            ClassState& s = state[c];
            DeviceTimeline& line = result->classes[c];
            SimEvent e = t.event;
            e.start = ready[c];
            if (t.stream == Stream::Comm) {
                for (int peer : classes.peers.at(t.event.axes)[c])
                    e.start = std::max(e.start, ready[static_cast<std::size_t>(peer)]);
                e.duration = timeCommTask(comm[c], t, levelBytes[c]);
                line.commBusy += e.duration;
            } else if (c == 0) {
                result->computeBusy += e.duration;
            }
            const double end = e.start + e.duration;
            s.ends[static_cast<std::size_t>(e.task)] = end;
            s.streamFree[stream] = end;
            s.last = std::max(s.last, end);
            recordMemory(t, end, resident, s, line);
            if (e.duration > 0)
                line.events.push_back(std::move(e));
        }
    }
    for (std::size_t c = 0; c < k; ++c) {
        DeviceTimeline& line = result->classes[c];
        closeTimeline(state[c], line);
        result->stepTime = std::max(result->stepTime, line.stepTime);
        result->commBusy = std::max(result->commBusy, line.commBusy);
        result->peakMemory = std::max(result->peakMemory, state[c].peak);
    }
    result->peakMemoryTime = result->classes.front().peakMemoryTime;
    result->exposedComm = result->stepTime - result->computeBusy;
    result->traffic = linkTraffic(cluster, mesh, classes.classOf, levelBytes);
    return result;
}

} // namespace shardscope
