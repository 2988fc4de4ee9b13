#pragma once
// Whether a plan has a framework's layout: its strategies equal a baseline's on the plan's mesh and
// cut (the frameworks' layouts are the registry's patterns). Exporters refuse with the difference.

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// The first axis of `mesh` other than pipe, data and model (and seq with `contextParallel`, expert
/// with `expertParallel`: the degrees frameworks name), if any.
std::optional<std::string> axisWithoutDegree(const Mesh& mesh, bool contextParallel = false, bool expertParallel = false);

/// How far `plan` is from baseline pattern `pattern` ("dp", "megatron", "megatron-sp").
struct LayoutDifference {
    std::string pattern;
    std::vector<std::size_t> ops;              ///< ops whose strategy differs, ascending
    std::vector<OpStrategy> expected;          ///< per op of the graph, the pattern's strategy
};

/// The difference of `plan` from `pattern` on its mesh, cut and settings. On a mesh with a seq axis the
/// pattern splits every op's sequence factor ("s") over it too (context parallelism: Megatron-LM's
/// --context-parallel-size, torchtitan's context_parallel_degree). With `expertsOverData`, the
/// pattern's experts are split over the data axis as well (expert parallelism: each data rank holds
/// experts / data of them; Megatron-LM's --expert-model-parallel-size).
LayoutDifference layoutDifference(const Graph& graph, const Plan& plan, const std::string& pattern,
                                  bool expertsOverData = false);

/// "2 ops differ from <framework>'s <pattern> layout on <mesh>: a is X, <framework>'s Y; ..." (at most
/// five ops named).
std::string describeDifference(const Graph& graph, const Plan& plan, const LayoutDifference& d,
                               const std::string& framework);

} // namespace shardscope
