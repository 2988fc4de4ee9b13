#include "engine/search/finalists.h"

#include "engine/cost/cost_model.h"

#include <algorithm>

namespace shardscope {

namespace {

/// True when `a` and `b` run the same step: mesh, settings, stage cut and every op's strategy.
bool sameStep(const Plan& a, const Plan& b) {
    if (!(a.mesh == b.mesh && a.settings == b.settings && a.pipeline == b.pipeline && a.ops.size() == b.ops.size()))
        return false;
    for (std::size_t o = 0; o < a.ops.size(); ++o)
        if (!(a.ops[o].strategy == b.ops[o].strategy))
            return false;
    return true;
}

} // namespace

std::optional<SimulatedFinalist> fastestSimulated(const std::vector<const CandidatePlan*>& candidates,
                                                  const CandidatePlan* baseline,
                                                  const std::shared_ptr<const Cluster>& cluster, std::stop_token stop) {
    std::vector<const CandidatePlan*> order = candidates;
    std::stable_sort(order.begin(), order.end(),
                     [](const CandidatePlan* a, const CandidatePlan* b) { return preferred(a->score, b->score); });
    if (order.empty())
        return std::nullopt;
    const Score lead = order.front()->score;
    std::vector<const CandidatePlan*> finalists;
    for (const CandidatePlan* c : order) {
        if (finalists.size() == kFinalists ||
            (!finalists.empty() && (c->score.feasible != lead.feasible ||
                                    c->score.stepTime > lead.stepTime * (1 + kFinalistMargin))))
            break;
        finalists.push_back(c);
    }
    if (baseline && baseline->score.feasible == lead.feasible &&
        std::none_of(finalists.begin(), finalists.end(),
                     [&](const CandidatePlan* c) { return c == baseline || sameStep(c->plan, baseline->plan); }))
        finalists.push_back(baseline);
    std::optional<SimulatedFinalist> best;
    double bestTime = 0;
    int simulated = 0;
    for (const CandidatePlan* finalist : finalists) {
        if (stop.stop_requested())
            break;
        const CandidatePlan& c = *finalist;
        // Its simulated step is at least its analytic one / (1 + kClockAgreement): no faster than the
        // best simulated so far once the analytic step is that far above it.
        if (best && c.score.stepTime >= (1 + kClockAgreement) * bestTime)
            continue;
        const Plan& plan = c.plan;
        const CostModel model(c.graph->facts, cluster, plan.mesh, plan.settings, CommModel(*cluster, plan.mesh));
        SimOptions options;
        options.overlap = plan.settings.overlap;
        options.timelines = false;
        auto sim = simulate(model, plan, options, stop);
        if (sim->cancelled)
            break;
        ++simulated;
        if (!best || sim->stepTime < bestTime) {
            bestTime = sim->stepTime;
            best = SimulatedFinalist{finalist, std::move(sim), 0};
        }
    }
    if (best)
        best->simulated = simulated;
    return best;
}

} // namespace shardscope
