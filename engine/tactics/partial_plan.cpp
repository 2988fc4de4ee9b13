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
    Provenance why = d.why;
    if (!d.decided)
        why.source = Provenance::Source::Undecided;
    return describeProvenance(why, *graph_, o, d.factor, mesh_.axes[a.index()].name, tactics, "");
}

Plan PartialPlan::complete(const std::vector<Tactic>& tactics, const std::string& name) const {
    Plan plan = Plan::replicated(graph_->ops().size(), mesh_);
    plan.name = name;
    plan.settings = settings;
    plan.tactics = tactics;
    for (std::size_t o = 0; o < graph_->ops().size(); ++o) {
        OpChoice& choice = plan.ops[o];
        choice.strategy = strategy(OpId(o));
        for (const AxisDecision& d : decisions_[o]) {
            choice.why.push_back(d.why);
            if (!d.decided)
                choice.why.back().source = Provenance::Source::Undecided;
        }
    }
    return plan;
}

} // namespace shardscope
