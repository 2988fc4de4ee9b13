#pragma once
// Baseline plans (docs/DESIGN.md, Baselines): data parallel, Megatron tensor parallel, sequence parallel, ZeRO/FSDP
// and their combinations such as "megatron+zero3" on a mesh `data=16,model=8`.

#include "engine/plans/plan.h"

#include <string>
#include <vector>

namespace shardscope {

/// A named expert plan of the registry, with what it is.
struct BaselineEntry {
    std::string spec;          ///< "megatron-sp+zero1"
    std::string description;   ///< one line for menus and `strategies`
};

/// The one registry of named baselines, in the order menus and comparisons list them: dp, zero1,
/// zero2, zero3, fsdp, megatron, megatron+zero1, megatron+zero3, megatron-sp, megatron-sp+zero1,
/// megatron-sp+zero3, megatron-sp+zero1+etp1 (Megatron-LM's distributed optimizer is +zero1).
const std::vector<BaselineEntry>& baselineRegistry();
/// The sharding patterns a baseline combines with a ZeRO stage: dp, megatron, megatron-sp,
/// megatron-sp+etp1.
const std::vector<std::string>& baselinePatterns();
/// The spec of `pattern` with ZeRO stage `zeroStage` (0-3): "dp" + 2 -> "zero2", "megatron" + 1 ->
/// "megatron+zero1".
std::string baselineSpec(const std::string& pattern, int zeroStage);
/// True when `spec` looks like a baseline ("dp", "megatron+zero1", ...), as opposed to a file path.
bool isBaselineSpec(const std::string& spec);

/// Builds baseline `spec`: one pattern (dp, megatron, megatron-sp; dp if omitted) joined by '+' with at
/// most one ZeRO stage (zero1, zero2, zero3, fsdp) and optionally etp1. The data axis is the one named
/// "data" (else the first), the model axis the one named "model" (else the last of two or more); an
/// axis named "expert" splits the expert computations' experts and every other op's batch. With etp1
/// (Megatron's MoE parallel folding, --expert-tensor-parallel-size 1) the model axis does the same in
/// the routed-expert layers instead of splitting their FFN: expert parallelism spans expert x model
/// ranks, while attention and shared experts stay tensor-parallel. An op whose factor
/// does not divide by an axis stays replicated on that axis. `settings` gets the ZeRO stage and axes
/// (data and expert: ZeRO shards each parameter over the data-parallel axes it is not split on).
/// Throws InputError for an unknown name or a mesh lacking the needed axis. With `sameAs` (per op, an
/// op of identical structure, or itself), an op takes its twin's strategy instead of working it out.
/// On a mesh with a pipe axis the plan takes `layout` when given, else the balanced cut.
Plan baselinePlan(const Graph& graph, const Mesh& mesh, const std::string& spec, StepSettings settings,
                  const std::vector<std::size_t>* sameAs = nullptr, const PipelineLayout* layout = nullptr);

} // namespace shardscope
