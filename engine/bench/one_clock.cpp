#include "engine/bench/one_clock.h"

#include "engine/bench/bench_common.h"
#include "engine/bench/bench_suite.h"

#include "engine/evaluation/evaluation.h"
#include "engine/evaluation/schedule_bound.h"
#include "engine/plans/baselines.h"
#include "engine/search/search.h"
#include "engine/sim/simulator.h"

#include <cmath>

namespace shardscope::bench {

double ClockRow::disagreement() const { return std::abs(analytic - simulated) / simulated; }

std::string ClockRow::overlapText() const { return !overlap ? "off" : tpOverlap == TpOverlap::Off ? "on" : "on+tp"; }

namespace {

/// `plan` priced both ways under its settings with overlap `on` and tensor-parallel overlap `tp`.
ClockRow clocks(const std::string& scenario, const std::string& name, const std::shared_ptr<const Graph>& g,
                const std::shared_ptr<const Cluster>& c, Plan plan, bool on, TpOverlap tp = TpOverlap::Off) {
    plan.settings.overlap = on;
    plan.settings.tpOverlap = tp;
    const CostModel model(g, c, plan.mesh, plan.settings);
    ClockRow row;
    row.scenario = scenario;
    row.plan = name;
    row.mesh = plan.mesh.toString();
    row.overlap = on;
    row.tpOverlap = tp;
    const auto e = evaluate(model, plan, nullptr, EvaluationDetail::Score);
    row.analytic = e->stepTime;
    row.lowerBound = stepLowerBound(model, plan, *e);
    const auto simulated = simulate(model, plan, SimOptions{on, true});
    row.simulated = simulated->stepTime;
    row.simulatedPeak = simulated->peakMemory;
    const auto chained = simulate(model, plan, SimOptions{on, false});
    row.chained = chained->stepTime;
    row.chainedPeak = chained->peakMemory;
    return row;
}

} // namespace

std::vector<ClockRow> oneClockWalk(const std::function<void(const std::string&)>& log) {
    std::vector<BenchScenario> scenarios = qualityScenarios();
    for (const auto& [s, target] : speedScenarios(true))
        if (s.clockWalk && (s.algorithm != "pase" || s.name.find("inception") != std::string::npos))
            scenarios.push_back(s); // the PaSE contrast rows search the same problems as TAPAS's
    std::vector<ClockRow> rows;
    for (const BenchScenario& s : scenarios) {
        if (log)
            log(s.name);
        const SearchRequest request = requestOf(s);
        const auto result = search(request);
        for (bool on : {true, false}) {
            rows.push_back(clocks(s.name, "search", result->graph, request.cluster, result->plan, on));
            for (const BaselineEntry& entry : baselineRegistry()) {
                Plan plan;
                try {
                    plan = baselinePlan(*result->graph, result->plan.mesh, entry.spec, result->plan.settings);
                } catch (const std::exception&) {
                    continue; // the mesh cannot express it
                }
                rows.push_back(clocks(s.name, entry.spec, result->graph, request.cluster, plan, on));
                // Tensor-parallel overlap too (Megatron-Core's --tp-comm-overlap) where there is a model axis.
                if (on && plan.mesh.degreeOf(AxisRole::Model) > 1)
                    rows.push_back(clocks(s.name, entry.spec, result->graph, request.cluster, plan, on, TpOverlap::Full));
            }
        }
    }
    return rows;
}

} // namespace shardscope::bench
