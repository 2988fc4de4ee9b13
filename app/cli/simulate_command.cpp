#include "commands.h"

#include "engine/cost/cost_model.h"
#include "engine/sim/simulator.h"
#include "engine/sim/trace_export.h"
#include "engine/io/json_fields.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runSimulate(const CliOptions& options, std::ostream& out) {
    const Scenario s = loadScenario(options.scenario);
    const CostModel model(s.graph, s.cluster, s.plan.mesh, s.plan.settings);
    SimOptions sim;
    sim.overlap = options.overlap;
    sim.bucketBytes = options.bucketMb * 1e6;
    const auto r = simulate(model, s.plan, sim);
    if (!options.tracePath.empty())
        writeFileAtomically(options.tracePath, chromeTraceJson(*r, s.graph, s.cluster, s.plan.mesh));
    if (!options.eventsPath.empty())
        writeFileAtomically(options.eventsPath, eventsJson(*r, s.plan.mesh));
    if (options.json) {
        nlohmann::json traffic = nlohmann::json::array();
        for (const LevelTraffic& t : r->traffic)
            traffic.push_back({{"level", t.level},
                               {"bytes_per_step", t.bytesPerStep},
                               {"busiest_pair", t.busiestPair},
                               {"busiest_pair_bytes", t.busiestPairBytes}});
        nlohmann::json j{{"model", s.graph.name},
                         {"mesh", s.plan.mesh.toString()},
                         {"overlap", options.overlap},
                         {"step_time_s", r->stepTime},
                         {"busy_time_s", {{"compute", r->computeBusy}, {"comm", r->commBusy}}},
                         {"exposed_comm_time_s", r->exposedComm},
                         {"peak_memory_bytes", r->peakMemory},
                         {"peak_memory_time_s", r->peakMemoryTime},
                         {"events", r->events.size()},
                         {"link_traffic", traffic}};
        out << j.dump(1) << "\n";
        return 0;
    }
    out << "simulated  " << s.graph.name << " on " << s.plan.mesh.toString() << ", overlap "
        << (options.overlap ? "on" : "off") << "\n";
    out << "step time  " << formatSeconds(r->stepTime) << " (compute busy " << formatSeconds(r->computeBusy)
        << ", communication busy " << formatSeconds(r->commBusy) << ", exposed communication "
        << formatSeconds(r->exposedComm) << ")\n";
    out << "memory     peak " << formatBytes(r->peakMemory) << " at " << formatSeconds(r->peakMemoryTime) << "\n";
    for (const LevelTraffic& t : r->traffic)
        out << "traffic    " << t.level << ": " << formatBytes(t.bytesPerStep) << " per step, busiest "
            << t.busiestPair << " (" << formatBytes(t.busiestPairBytes) << ")\n";
    return 0;
}

} // namespace shardscope::cli
