#include "commands.h"

#include "engine/cost/cost_model.h"
#include "engine/sim/device_selection.h"
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
    sim.overlap = s.plan.settings.overlap;
    const int devices = s.plan.mesh.deviceCount();
    // Checked before the simulation, so a bad list fails fast.
    const std::vector<int> chosen = options.devices.empty() ? std::vector<int>{} : parseDeviceList(options.devices, devices);
    const auto r = simulate(model, s.plan, sim);
    const std::vector<int> shown = chosen.empty() ? defaultShownDevices(*r, *s.cluster) : chosen;
    if (!options.tracePath.empty())
        writeFileAtomically(options.tracePath, chromeTraceJson(*r, *s.cluster, s.plan.mesh, shown));
    if (!options.eventsPath.empty())
        writeFileAtomically(options.eventsPath, eventsJson(*r, s.plan.mesh, shown));
    if (options.json) {
        nlohmann::json traffic = nlohmann::json::array();
        for (const LevelTraffic& t : r->traffic) {
            nlohmann::json pairs = nlohmann::json::array();
            for (const PairTraffic& p : t.pairs)
                pairs.push_back({{"from", p.from}, {"to", p.to}, {"bytes", p.bytes}});
            traffic.push_back({{"level", t.level},
                               {"bytes_per_step", t.bytesPerStep},
                               {"busiest_pair", t.busiestPair},
                               {"busiest_pair_bytes", t.busiestPairBytes},
                               {"pairs", pairs}});
        }
        nlohmann::json classes = nlohmann::json::array();
        for (const DeviceTimeline& line : r->classes)
            classes.push_back({{"devices", formatDeviceRanges(line.devices)},
                               {"step_time_s", line.stepTime},
                               {"comm_busy_s", line.commBusy}});
        nlohmann::json j{{"model", s.graph->name},
                         {"mesh", s.plan.mesh.toString()},
                         {"overlap", s.plan.settings.overlap},
                         {"step_time_s", r->stepTime},
                         {"busy_time_s", {{"compute", r->computeBusy}, {"comm", r->commBusy}}},
                         {"exposed_comm_time_s", r->exposedComm},
                         {"peak_memory_bytes", r->peakMemory},
                         {"peak_memory_time_s", r->peakMemoryTime},
                         {"events", r->eventCount()},
                         {"device_classes", classes},
                         {"link_traffic", traffic}};
        out << j.dump(1) << "\n";
        return 0;
    }
    out << "simulated  " << s.graph->name << " on " << s.plan.mesh.toString() << ", overlap "
        << (s.plan.settings.overlap ? "on" : "off") << "\n";
    out << "step time  " << formatSeconds(r->stepTime) << " (compute busy " << formatSeconds(r->computeBusy)
        << ", communication busy " << formatSeconds(r->commBusy) << ", exposed communication "
        << formatSeconds(r->exposedComm) << ")\n";
    if (r->classes.size() > 1)
        for (const DeviceTimeline& line : r->classes)
            out << "devices    " << formatDeviceRanges(line.devices) << ": step " << formatSeconds(line.stepTime)
                << ", communication busy " << formatSeconds(line.commBusy) << "\n";
    out << "memory     peak " << formatBytes(r->peakMemory) << " at " << formatSeconds(r->peakMemoryTime) << "\n";
    for (const LevelTraffic& t : r->traffic)
        out << "traffic    " << t.level << ": " << formatBytes(t.bytesPerStep) << " per step, busiest "
            << t.busiestPair << " (" << formatBytes(t.busiestPairBytes) << ")\n";
    return 0;
}

} // namespace shardscope::cli
