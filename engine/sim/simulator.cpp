#include "engine/sim/simulator.h"

#include "engine/sim/device_classes.h"
#include "engine/sim/event_engine.h"
#include "engine/sim/pipeline_simulator.h"
#include "engine/sim/timeline_clock.h"

#include <algorithm>

namespace shardscope {

std::size_t SimResult::eventCount() const {
    std::size_t n = 0;
    for (const DeviceTimeline& t : classes)
        n += t.events.size();
    return n;
}

namespace {

std::vector<AxisSet> communicatedSets(const StepProgram& program) {
    std::vector<AxisSet> sets;
    for (const SimTask& t : program.tasks)
        if (t.stream != Stream::Compute && std::find(sets.begin(), sets.end(), t.event.axes) == sets.end())
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
    comm.reserve(k);
    for (std::size_t c = 0; c < k; ++c)
        comm.emplace_back(cluster, mesh, classes.representative(c));

    // Every class runs the same program; a collective starts when the classes of its group are all ready.
    EngineSetup setup;
    setup.program = &program;
    for (const CommModel& m : comm)
        setup.comm.push_back(&m);
    setup.resident.assign(k, program.staticBytes.front() + program.workspace.front());
    setup.spmd = true;
    setup.peers = &classes.peers;
    setup.overlap = options.overlap;
    setup.slowdown = cluster.device.overlapSlowdown;
    setup.timelines = options.timelines;
    setup.stop = stop;
    EngineRun run = runEngine(setup);

    auto result = std::make_shared<SimResult>();
    result->devices = mesh.deviceCount();
    result->classOfDevice = classes.classOf;
    std::vector<LevelBytes> levelBytes;
    std::vector<StageSends> sends;
    collectLines(run, classes.members, *result, levelBytes, sends);
    result->traffic = linkTraffic(cluster, mesh, classes.classOf, levelBytes);
    return result;
}

} // namespace shardscope
