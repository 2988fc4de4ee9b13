#include "engine/search/plan_score.h"

#include "engine/evaluation/evaluation.h"

#include <algorithm>

namespace shardscope {

bool preferred(const Score& a, const Score& b) {
    if (a.feasible != b.feasible)
        return a.feasible;
    return a.feasible ? a.stepTime < b.stepTime : a.peakMemory < b.peakMemory;
}

Score scorePlan(const CostModel& model, const Plan& plan, const RepeatedBlocks* folded, double cutoff) {
    if (plan.pipeline.active() || model.settings().overlap) {
        // Stages compose by the schedule and streams run beside each other across ops, not by sums:
        // the evaluation itself.
        const auto e = evaluate(model, plan, folded, EvaluationDetail::Score, Composition::Streams, cutoff);
        return Score{e->stepTime, e->peakMemory, e->feasible, e->stepIsBound};
    }
    if (folded && !plan.repeats(*folded))
        folded = nullptr; // blocks that differ are priced one by one
    // Blocks are numbered from 0. Ops of block b >= 2 repeat block 1, so block 1's ops count L-1 times.
    // An edge into block b >= 3 repeats the edge into block 2 (both come from a copy of block 1), so
    // the edges into block 2 count L-2 times; those into block 1 leave block 0 and count once.
    const int blocks = folded ? folded->count() : 0;
    auto blockOf = [&](OpId o) { return folded ? folded->blockOf[o.index()] : -1; };
    double time = 0, memory = 0, transient = 0;
    for (std::size_t o = 0; o < plan.ops.size(); ++o) {
        const int b = blockOf(OpId(o));
        if (b >= 2)
            continue;
        const OpCost c = model.opCost(OpId(o), plan.ops[o].strategy);
        const double times = b == 1 ? blocks - 1 : 1;
        time += times * c.totalTime();
        memory += times * c.memory.sum();
        transient = std::max(transient, c.transient);
    }
    for (const Edge& e : model.edges()) {
        const int b = blockOf(e.to);
        if (b >= 3)
            continue;
        const double times = b == 2 ? blocks - 2 : 1;
        time += times * model.edgeCost(e, plan.ops[e.from.index()].strategy, plan.ops[e.to.index()].strategy).time();
    }
    Score s;
    s.stepTime = time;
    s.peakMemory = memory + transient;
    s.feasible = s.peakMemory <= model.cluster().device.memoryBytes;
    return s;
}

} // namespace shardscope
