#pragma once
// A sharding plan: mesh, step settings and one strategy per op (DESIGN 3, plan files).

#include "engine/cost/step_settings.h"
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

    /// A plan replicating every op of a graph with `opCount` ops on `mesh`.
    static Plan replicated(std::size_t opCount, const Mesh& mesh);
    /// Empty if every strategy is valid for `graph` on the plan's mesh; else the first problem, naming the op.
    std::string verify(const Graph& graph) const;
};

} // namespace shardscope
