#include "engine/tactics/partial_plan.h"

namespace shardscope {

PartialPlan::PartialPlan(const Graph& graph, Mesh mesh, StepSettings s)
    : settings(s), graph_(&graph), mesh_(std::move(mesh)),
      decisions_(graph.ops().size(), std::vector<AxisDecision>(mesh_.rank())) {}

void PartialPlan::decide(OpId o, AxisId a, int factor, const Provenance& why) {
    AxisDecision& d = decisions_[o.index()][a.index()];
    d.decided = true;
    d.factor = factor;
    d.why = why;
}

OpStrategy PartialPlan::strategy(OpId o) const {
    OpStrategy s = OpStrategy::replicated(mesh_.rank());
    for (std::size_t a = 0; a < mesh_.rank(); ++a)
        if (decisions_[o.index()][a].decided)
            s.factorOfAxis[a] = decisions_[o.index()][a].factor;
    return s;
}

StrategyPin PartialPlan::pin(OpId o) const {
    StrategyPin p;
    for (const AxisDecision& d : decisions_[o.index()])
        p.factorOfAxis.push_back(d.decided ? std::optional<int>(d.factor) : std::nullopt);
    return p;
}

int PartialPlan::decidedCount() const {
    int n = 0;
    for (std::size_t o = 0; o < decisions_.size(); ++o)
        n += decidedAxes(OpId(o));
    return n;
}

int PartialPlan::decidedAxes(OpId o) const {
    int n = 0;
    for (const AxisDecision& d : decisions_[o.index()])
        n += d.decided ? 1 : 0;
    return n;
}

std::string PartialPlan::describe(OpId o, AxisId a, const std::vector<Tactic>& tactics) const {
    const AxisDecision& d = at(o, a);
    const Op& op = graph_->op(o);
    const std::string what = d.factor >= 0 ? op.rule.factors[std::size_t(d.factor)].name + " split over " + mesh_.axes[a.index()].name
                                           : "nothing split over " + mesh_.axes[a.index()].name;
    if (!d.decided)
        return "no tactic decided " + mesh_.axes[a.index()].name + ": replicated";
    const std::string tactic = d.why.tactic >= 0 && std::size_t(d.why.tactic) < tactics.size()
                                   ? "tactic " + std::to_string(d.why.tactic + 1) + " " + tactics[std::size_t(d.why.tactic)].toString()
                                   : "a tactic";
    if (d.why.source == Provenance::Source::Tactic)
        return what + ": " + tactic + (d.why.via.valid() ? " fixed " + graph_->tensor(d.why.via).name : std::string());
    return what + ": propagated from " + graph_->op(d.why.from).name + " through " + graph_->tensor(d.why.via).name +
           " (" + tactic + ")";
}

Plan PartialPlan::complete(const std::vector<Tactic>& tactics, const std::string& name) const {
    Plan plan = Plan::replicated(graph_->ops().size(), mesh_);
    plan.name = name;
    plan.settings = settings;
    plan.why.assign(graph_->ops().size(), std::vector<std::string>(mesh_.rank()));
    for (std::size_t o = 0; o < graph_->ops().size(); ++o) {
        plan.strategies[o] = strategy(OpId(o));
        for (std::size_t a = 0; a < mesh_.rank(); ++a)
            plan.why[o][a] = describe(OpId(o), AxisId(a), tactics);
    }
    return plan;
}

} // namespace shardscope
