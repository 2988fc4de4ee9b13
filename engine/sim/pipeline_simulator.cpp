#include "engine/sim/pipeline_simulator.h"

#include "engine/sim/event_engine.h"
#include "engine/sim/timeline_clock.h"

#include <algorithm>

namespace shardscope {

std::shared_ptr<const SimResult> simulatePipeline(const CostModel& model, const StepProgram& program,
                                                  const SimOptions& options, std::stop_token stop) {
    const Cluster& cluster = model.cluster();
    const Mesh& mesh = model.mesh();
    const std::size_t P = std::size_t(program.stages);
    const int devices = mesh.deviceCount();
    const int perStage = devices / int(P);

    std::vector<CommModel> comm;
    comm.reserve(P);
    EngineSetup setup;
    setup.program = &program;
    for (std::size_t s = 0; s < P; ++s) {
        comm.emplace_back(cluster, mesh, int(s) * perStage);
        setup.resident.push_back(program.staticBytes[s] + program.workspace[s]);
    }
    for (const CommModel& m : comm)
        setup.comm.push_back(&m);
    setup.spmd = false;
    setup.overlap = options.overlap;
    setup.slowdown = cluster.device.overlapSlowdown;
    setup.timelines = options.timelines;
    setup.stop = stop;
    EngineRun run = runEngine(setup);

    auto result = std::make_shared<SimResult>();
    result->devices = devices;
    result->classOfDevice.resize(std::size_t(devices));
    std::vector<std::vector<int>> members(P);
    for (int d = 0; d < devices; ++d) {
        result->classOfDevice[std::size_t(d)] = d / perStage;
        members[std::size_t(d / perStage)].push_back(d);
    }
    std::vector<LevelBytes> levelBytes;
    std::vector<StageSends> sends;
    collectLines(run, members, *result, levelBytes, sends);
    result->traffic = linkTraffic(cluster, mesh, result->classOfDevice, levelBytes, sends);
    return result;
}

} // namespace shardscope
