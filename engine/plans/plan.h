#pragma once
// A sharding plan: mesh, step settings and one strategy per op (docs/DESIGN.md, Files).

#include "engine/cost/step_settings.h"
#include "engine/pipeline/pipeline_layout.h"
#include "engine/plans/tactic.h"
#include "engine/sharding/strategy.h"

#include <string>
#include <vector>

namespace shardscope {

/// The choice of a strategy for every op of one graph, indexed by OpId.
struct Plan {
    std::string name;                   ///< "dp", "megatron", a file name...
    Mesh mesh;
    StepSettings settings;
    std::vector<OpStrategy> strategies; ///< one per op
    std::vector<bool> locked;           ///< one per op; locked ops are kept by every search
    std::vector<Tactic> tactics;        ///< the tactic script that built the plan, if any
    std::vector<TacticStep> tacticSteps;///< the figures after each tactic
    std::vector<std::vector<std::string>> why; ///< [op][axis]: why the axis splits what it does; may be empty
    std::string whyByDefault;           ///< why, wherever `why` says nothing ("the megatron baseline")
    std::vector<bool> undecided;        ///< per op: no tactic decided it yet (a tactic step's partial plan); not saved
    PipelineLayout pipeline;            ///< the stage cut when the mesh has a pipe axis (inactive otherwise)

    /// Why axis `axis` of op `op` is as it is, or an empty string when the plan does not say.
    std::string whyOf(std::size_t op, std::size_t axis) const {
        return op < why.size() && axis < why[op].size() && !why[op][axis].empty() ? why[op][axis] : whyByDefault;
    }

    /// A plan replicating every op of a graph with `opCount` ops on `mesh`.
    static Plan replicated(std::size_t opCount, const Mesh& mesh);
    /// Empty if every strategy is valid for `graph` on the plan's mesh, none splits over the pipe axis
    /// and the stage cut matches the pipe axis and the settings; else the first problem, naming the op.
    std::string verify(const Graph& graph) const;
};

} // namespace shardscope
