#pragma once
// A sharding plan: mesh, step settings and per op its choice (docs/DESIGN.md, Files).

#include "engine/cost/step_settings.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/pipeline/pipeline_layout.h"
#include "engine/plans/provenance.h"
#include "engine/plans/tactic.h"
#include "engine/sharding/strategy.h"

#include <string>
#include <vector>

namespace shardscope {

/// What a plan decided for one op: its strategy, whether searches keep it, and why each axis is so.
struct OpChoice {
    OpStrategy strategy;
    bool locked = false;          ///< every search keeps this op's strategy
    std::vector<Provenance> why;  ///< one per mesh axis, or empty: every axis Provenance::Source::Origin

    /// Why axis `axis` splits what it does (Source::Origin when `why` says nothing).
    const Provenance& whyOn(std::size_t axis) const;
    /// True when the choice is a tactic step's and no tactic decided any of its axes yet.
    bool undecided() const;
    /// Sets every axis of a `rank`-axis mesh to `source`.
    void setWhy(Provenance::Source source, std::size_t rank);

    bool operator==(const OpChoice&) const = default;
};

/// The choice for every op of one graph, indexed by OpId.
struct Plan {
    std::string name;                   ///< "dp", "megatron", a file name...
    Mesh mesh;
    StepSettings settings;
    std::vector<OpChoice> ops;          ///< one per op of the graph
    std::vector<Tactic> tactics;        ///< the tactic script that built the plan, if any
    std::vector<TacticStep> tacticSteps;///< the figures after each tactic
    std::string origin;                 ///< what made the plan, in words ("the megatron baseline"): why, where ops say Origin
    PipelineLayout pipeline;            ///< the stage cut when the mesh has a pipe axis (inactive otherwise)

    /// The strategy of op `o`.
    const OpStrategy& strategy(OpId o) const { return ops[o.index()].strategy; }
    /// Every op's strategy, in op order.
    std::vector<OpStrategy> strategies() const;
    /// True when every op of blocks 2.. of `blocks` takes the strategy of its twin in block 1, so that
    /// an evaluation may price block 1 once for all of them (evaluate() with `folded`).
    bool repeats(const RepeatedBlocks& blocks) const;
    /// Why axis `axis` of op `o` splits what it does, in words; empty when nothing says.
    std::string whyOf(const Graph& graph, OpId o, std::size_t axis) const;

    /// A plan replicating every op of a graph with `opCount` ops on `mesh`.
    static Plan replicated(std::size_t opCount, const Mesh& mesh);
    /// Empty if the plan has one valid choice per op of `graph` on its mesh (each with a reason per
    /// axis or none), none splits over the pipe axis and the stage cut matches the pipe axis and the
    /// settings; else the first problem, naming the op.
    std::string verify(const Graph& graph) const;
};

} // namespace shardscope
