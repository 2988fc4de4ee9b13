#include "engine/evaluation/what_if.h"

#include <algorithm>

namespace shardscope {

namespace {

/// Seconds per step of op `o` under `s` and of every edge touching it, the rest of `plan` fixed.
double localTime(const CostModel& model, const Plan& plan, OpId o, const OpStrategy& s, const OpCost& cost,
                 const std::vector<const Edge*>& edges) {
    double t = cost.totalTime();
    for (const Edge* e : edges) {
        const OpStrategy& from = e->from == o ? s : plan.ops[e->from.index()].strategy;
        const OpStrategy& to = e->to == o ? s : plan.ops[e->to.index()].strategy;
        t += model.edgeCost(*e, from, to).time();
    }
    return t;
}

} // namespace

std::vector<WhatIf> whatIf(const CostModel& model, const Plan& plan, const Evaluation& evaluation, OpId o) {
    const Op& op = model.graph().op(o);
    std::vector<const Edge*> edges;
    for (const Edge& e : model.edges())
        if (e.from == o || e.to == o)
            edges.push_back(&e);
    // The largest transient buffer of the other ops.
    double otherBuffers = 0;
    for (const OpReport& r : evaluation.perOp)
        if (r.op != o)
            otherBuffers = std::max(otherBuffers, r.transient);
    const OpStrategy& mine = plan.ops[o.index()].strategy;
    const OpCost now = model.opCost(o, mine);
    const double restTime = evaluation.objective - localTime(model, plan, o, mine, now, edges);
    const double restMemory = evaluation.memory.sum() - now.memory.sum();

    std::vector<WhatIf> out;
    for (const OpStrategy& s : enumerateStrategies(op, model.mesh())) {
        const OpCost cost = model.opCost(o, s);
        WhatIf w;
        w.strategy = s;
        w.text = s.toString(op.rule, model.mesh());
        w.stepTime = restTime + localTime(model, plan, o, s, cost, edges);
        w.peakMemory = restMemory + cost.memory.sum() + std::max(otherBuffers, cost.transient);
        w.feasible = w.peakMemory <= evaluation.memoryCapacity;
        w.current = s == mine;
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace shardscope
