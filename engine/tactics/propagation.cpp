#include "engine/tactics/propagation.h"

namespace shardscope {

Propagator::Propagator(const Graph& graph, PartialPlan& plan, const std::vector<Tactic>& tactics, int tactic,
                       std::vector<std::string>& conflicts, std::vector<std::string>& notes,
                       std::function<bool(const Op&)> enters)
    : graph_(graph), plan_(plan), tactics_(tactics), tactic_(tactic), conflicts_(conflicts), notes_(notes),
      enters_(std::move(enters)) {}

std::string Propagator::decisionText(OpId o, AxisId axis, int factor) const {
    const Op& op = graph_.op(o);
    return op.name + " " + (factor >= 0 ? op.rule.factors[std::size_t(factor)].name : std::string("nothing")) + " over " +
           plan_.mesh().axes[axis.index()].name;
}

bool Propagator::propose(OpId o, AxisId axis, int factor, const Provenance& why, bool direct) {
    if (!direct && enters_ && !enters_(graph_.op(o)))
        return false;
    const AxisDecision& now = plan_.at(o, axis);
    if (now.decided) {
        if (now.factor == factor)
            return true;
        // The earlier decision stands. It is a conflict when this tactic meant it (a direct decision)
        // or when this tactic's own decisions disagree; elsewhere it is the edge of an earlier region.
        if (direct || now.why.tactic == tactic_) {
            Provenance mine = why;
            conflicts_.push_back("op " + graph_.op(o).name + " on " + plan_.mesh().axes[axis.index()].name + ": kept " +
                                 plan_.describe(o, axis, tactics_) + "; not " + decisionText(o, axis, factor) +
                                 " wanted by tactic " + std::to_string(tactic_ + 1) + " " +
                                 tactics_[std::size_t(tactic_)].toString() +
                                 (mine.source == Provenance::Source::Propagated
                                      ? " through " + graph_.tensor(mine.via).name + " from " + graph_.op(mine.from).name
                                      : std::string()));
        }
        return false;
    }
    OpStrategy trial = plan_.strategy(o);
    trial.factorOfAxis[axis.index()] = factor;
    if (const std::string error = verifyStrategy(graph_.op(o), plan_.mesh(), trial); !error.empty()) {
        if (direct)
            notes_.push_back("cannot split " + decisionText(o, axis, factor) + ": " + error);
        return false;
    }
    plan_.decide(o, axis, factor, why);
    queue_.emplace_back(o, axis);
    return true;
}

bool Propagator::decideOp(OpId o, AxisId axis, int factor) {
    Provenance why;
    why.source = Provenance::Source::Tactic;
    why.tactic = tactic_;
    const bool ok = propose(o, axis, factor, why, true);
    spread();
    return ok;
}

bool Propagator::splitTensor(TensorId t, int dim, AxisId axis) {
    const Tensor& tensor = graph_.tensor(t);
    if (dim < 0 || std::size_t(dim) >= tensor.shape.size()) {
        notes_.push_back("tensor " + tensor.name + " has no dimension " + std::to_string(dim));
        return false;
    }
    plan_.tensors.push_back(TensorDecision{t, dim, axis, tactic_});
    Provenance why;
    why.source = Provenance::Source::Tactic;
    why.tactic = tactic_;
    why.via = t;
    bool any = false;
    if (tensor.producer.valid()) {
        const Op& p = graph_.op(tensor.producer);
        for (std::size_t k = 0; k < p.outputs.size(); ++k)
            if (p.outputs[k] == t)
                any = propose(tensor.producer, axis, p.rule.outputs[k][std::size_t(dim)].front(), why, true) || any;
    }
    for (OpId c : tensor.consumers) {
        const Op& op = graph_.op(c);
        for (std::size_t k = 0; k < op.inputs.size(); ++k)
            if (op.inputs[k] == t)
                any = propose(c, axis, op.rule.inputs[k][std::size_t(dim)].front(), why, true) || any;
    }
    spread();
    return any;
}

void Propagator::spreadTensor(TensorId t, int dim, AxisId axis, OpId from, int skipSlot, bool fromIsConsumer) {
    const Tensor& tensor = graph_.tensor(t);
    Provenance why;
    why.source = Provenance::Source::Propagated;
    why.tactic = tactic_;
    why.from = from;
    why.via = t;
    if (tensor.producer.valid() && !(tensor.producer == from && !fromIsConsumer)) {
        const Op& p = graph_.op(tensor.producer);
        for (std::size_t k = 0; k < p.outputs.size(); ++k)
            if (p.outputs[k] == t)
                propose(tensor.producer, axis, p.rule.outputs[k][std::size_t(dim)].front(), why, false);
    }
    for (OpId c : tensor.consumers) {
        const Op& op = graph_.op(c);
        for (std::size_t k = 0; k < op.inputs.size(); ++k)
            if (op.inputs[k] == t && !(c == from && fromIsConsumer && int(k) == skipSlot))
                propose(c, axis, op.rule.inputs[k][std::size_t(dim)].front(), why, false);
    }
}

void Propagator::spread() {
    while (!queue_.empty()) {
        const auto [o, axis] = queue_.front();
        queue_.pop_front();
        const int f = plan_.at(o, axis).factor;
        if (f < 0)
            continue;
        const Op& op = graph_.op(o);
        // Every operand dimension whose major factor is f is split over the axis.
        for (std::size_t k = 0; k < op.outputs.size(); ++k)
            for (std::size_t d = 0; d < op.rule.outputs[k].size(); ++d)
                if (op.rule.outputs[k][d].front() == f)
                    spreadTensor(op.outputs[k], int(d), axis, o, int(k), false);
        for (std::size_t k = 0; k < op.inputs.size(); ++k)
            for (std::size_t d = 0; d < op.rule.inputs[k].size(); ++d)
                if (op.rule.inputs[k][d].front() == f)
                    spreadTensor(op.inputs[k], int(d), axis, o, int(k), true);
    }
}

} // namespace shardscope
