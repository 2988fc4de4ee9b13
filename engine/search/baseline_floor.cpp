// MeshSearch's first pass: the expert's whole toolbox as the floor the search must not fall below.

#include "engine/search/mesh_search.h"

#include "engine/cost/cost_model.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

namespace shardscope {

std::optional<Plan> MeshSearch::pinnedBaseline(const Combo& c, const std::string& spec) const {
    // The baseline with the request's locks and pins applied; a pin that makes it invalid means this
    // baseline is no floor.
    Plan b;
    try {
        b = baselinePlan(*c.graph->graph, mesh_, spec, c.settings, &c.twin, c.layout.active() ? &c.layout : nullptr);
    } catch (const InputError&) {
        return std::nullopt; // e.g. no model axis on this mesh
    }
    b.settings = c.settings;
    const Graph& g = *c.graph->graph;
    for (std::size_t v = 0; v < in_.pins.size() && v < b.ops.size(); ++v) {
        if (!in_.pins[v])
            continue;
        for (std::size_t a = 0; a < in_.pins[v]->factorOfAxis.size() && a < mesh_.rank(); ++a)
            if (in_.pins[v]->factorOfAxis[a])
                b.ops[v].strategy.factorOfAxis[a] = *in_.pins[v]->factorOfAxis[a];
        b.ops[v].locked = v < in_.locks.size() && in_.locks[v].has_value();
        if (!verifyStrategy(g.ops()[v], mesh_, b.ops[v].strategy).empty())
            return std::nullopt;
    }
    return b;
}

MeshSearch::Scored MeshSearch::scoreWithin(const Combo& c, const Plan& plan) const {
    if (c.layout.active())
        return scoreCut(c, plan, false);
    const Score score = scorePlan(*c.model, plan, c.graph->folded(), cutoff());
    return Scored{score, c.layout, score.stepTime, score.bounded};
}

void MeshSearch::weighStart() {
    const Plan& start = *in_.start;
    const StepSettings& s = start.settings;
    // Only as a combination of this search: its settings as the space would make them.
    if (!(in_.space.at(s.zeroStage, s.recompute, s.microbatches, in_.zeroAxes) == s) || (s.zeroStage > 0 && in_.zeroAxes == 0))
        return;
    Combo& c = combo(s);
    if (!start.verify(*c.graph->graph).empty())
        return; // not a valid plan of this count's graph
    // It must keep every lock and pin, as the search's own plans do.
    for (std::size_t v = 0; v < in_.pins.size() && v < start.ops.size(); ++v)
        if (in_.pins[v] && !in_.pins[v]->allows(start.ops[v].strategy))
            return;
    Plan plan = start;
    for (std::size_t v = 0; v < plan.ops.size(); ++v)
        plan.ops[v].locked = v < in_.locks.size() && in_.locks[v].has_value();
    const Scored scored = scoreWithin(c, plan);
    if (scored.bounded)
        return;
    const Score& score = scored.score;
    plan.pipeline = scored.layout;
    if (score.feasible)
        recordFit(score.stepTime);
    if (!best_ || preferred(score, best_->score))
        best_ = CandidatePlan{plan, score, c.graph, SearchAlgorithm::Auto, std::nullopt};
}

void MeshSearch::floor() {
    // Every pattern (dp, megatron, megatron-sp, and with experts megatron-sp+etp1) with every ZeRO stage, recomputation and micro-batch
    // count of the space. Per pattern and stage, a combination that is dominated by one already
    // priced (more recomputation, a multiple of its micro-batches) and that one cannot win, is skipped.
    const SettingsSpace& sp = in_.space;
    if (in_.start)
        weighStart();
    for (const std::string& pattern : baselinePatterns())
        for (int z : sp.zeroStages) {
            if (z > 0 && in_.zeroAxes == 0)
                continue;
            const std::string spec = baselineSpec(pattern, z);
            std::vector<std::pair<StepSettings, double>> bounds;
            for (int m : sp.microbatches) {
                // The pattern's strategies depend on the graph of this count, not on recomputation.
                std::optional<std::optional<Plan>> forCount;
                for (Recompute r : sp.recomputes) {
                    if (in_.stop.stop_requested()) {
                        cancelled_ = true;
                        return;
                    }
                    const StepSettings s = sp.at(z, r, m, in_.zeroAxes);
                    // Pruned by what this pass priced, or by a previous search's bounds.
                    if (dominated(s, bounds) || dominated(s, in_.previousBounds)) {
                        ++pruned_;
                        continue;
                    }
                    Combo& c = combo(s);
                    // Folding the experts over the model axis is megatron-sp itself without experts.
                    if (!forCount && spec.find("etp1") != std::string::npos && !c.graph->graph->hasRoutedExperts())
                        forCount = std::optional<Plan>();
                    if (!forCount)
                        forCount = pinnedBaseline(c, spec);
                    if (!*forCount)
                        continue;
                    Plan& plan = **forCount;
                    plan.settings = c.settings;
                    // Pipelined, the expert's strategies on the cut the search would choose for them
                    // too (Megatron's balanced cut when that is no faster).
                    Scored scored = scoreWithin(c, plan);
                    if (scored.bounded) {
                        // Its lower bound cannot win: a bound for the settings it dominates.
                        recordBounded(scored);
                        bounds.emplace_back(s, scored.fastest);
                        continue;
                    }
                    const Score score = scored.score;
                    plan.pipeline = std::move(scored.layout);
                    bounds.emplace_back(s, score.stepTime);
                    if (score.feasible)
                        recordFit(score.stepTime);
                    const CandidatePlan candidate{plan, score, c.graph, SearchAlgorithm::Auto, spec};
                    if (!bestBaseline_ || preferred(score, bestBaseline_->score))
                        bestBaseline_ = candidate;
                    if (!best_ || preferred(score, best_->score))
                        best_ = candidate;
                    plan.pipeline = c.layout;
                }
            }
        }
    progress(0.1);
}

} // namespace shardscope
