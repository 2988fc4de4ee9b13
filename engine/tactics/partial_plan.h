#pragma once
// A plan under construction by tactics: per op and mesh axis, the factor decided so far (or none
// yet), and why — which tactic decided it, or which neighbour it propagated from.

#include "engine/plans/plan.h"

#include <string>
#include <vector>

namespace shardscope {

/// One op's decision on one axis.
struct AxisDecision {
    bool decided = false;
    int factor = -1;          ///< the factor split (-1: none)
    Provenance why;
};

/// A tensor dimension a tactic fixed directly.
struct TensorDecision {
    TensorId tensor;
    int dim = 0;
    AxisId axis;
    int tactic = -1;
};

/// Decisions so far for every op and axis.
class PartialPlan {
public:
    /// Nothing decided for the ops of `graph` on `mesh`.
    PartialPlan(const Graph& graph, Mesh mesh, StepSettings settings);

    /// The decision of op `o` on axis `a`.
    const AxisDecision& at(OpId o, AxisId a) const { return decisions_[o.index()][a.index()]; }
    /// Records `factor` for op `o` on axis `a` with its provenance.
    void decide(OpId o, AxisId a, int factor, const Provenance& why);
    /// The strategy of `o` with every undecided axis splitting nothing.
    OpStrategy strategy(OpId o) const;
    /// The decided axes of `o` as a pin for the search.
    StrategyPin pin(OpId o) const;
    /// Number of (op, axis) pairs decided.
    int decidedCount() const;
    /// Number of axes decided for op `o`.
    int decidedAxes(OpId o) const;
    /// Why op `o` splits what it does on axis `a`, in words, naming ops, tensors and tactics.
    std::string describe(OpId o, AxisId a, const std::vector<Tactic>& tactics) const;
    /// The plan: undecided axes split nothing (Provenance::Source::Undecided); each axis keeps its provenance.
    Plan complete(const std::vector<Tactic>& tactics, const std::string& name) const;

    /// The mesh decided on.
    const Mesh& mesh() const { return mesh_; }
    /// The step settings (zero tactics change them).
    StepSettings settings;
    /// Tensor dimensions fixed directly by tactics, in order.
    std::vector<TensorDecision> tensors;

private:
    const Graph* graph_;
    Mesh mesh_;
    std::vector<std::vector<AxisDecision>> decisions_;
};

} // namespace shardscope
