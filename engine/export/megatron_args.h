#pragma once
// A plan as Megatron-LM's command-line arguments (pretrain_gpt.py): the parallel degrees and the step
// settings Megatron has flags for. Megatron expresses one layout per degree — its tensor-parallel
// split of every layer (optionally with sequence parallelism in the norms and dropout), pipeline
// stages of whole layers, data parallelism over the rest — so a plan is exported only when every op's
// strategy is the megatron (or megatron-sp, or dp when there is no model axis) baseline's on the
// plan's mesh; otherwise the export is refused with the ops that differ, never approximated.
//
// Routed experts split over the data axis (each data rank holding experts / data of them) export as
// --expert-model-parallel-size, with the experts' tensor split as --expert-tensor-parallel-size.
//
// Example: megatron-sp+zero1 on pipe=8,data=16,model=8, 96 layers, 64 micro-batches of one sequence,
// interleaved with 3 chunks per stage, full recomputation:
//   --tensor-model-parallel-size 8 --sequence-parallel --pipeline-model-parallel-size 8
//   --num-layers-per-virtual-pipeline-stage 4 --use-distributed-optimizer --recompute-granularity full
//   --recompute-method uniform --recompute-num-layers 1 --micro-batch-size 1 --global-batch-size 1024
//   --overlap-grad-reduce

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <string>
#include <utility>
#include <vector>

namespace shardscope {

/// Megatron-LM arguments as (flag, value) pairs in command-line order; value empty for a switch.
using MegatronArguments = std::vector<std::pair<std::string, std::string>>;

/// The arguments of `plan` for `graph` (the graph of one micro-batch) with `globalBatch` sequences
/// per step. Throws InputError naming what Megatron cannot express: ops whose strategy differs from
/// the Megatron layout on the mesh, mesh axes other than pipe, data and model, ZeRO-2 or -3, GPipe, a
/// cut Megatron's first/last-stage layer counts cannot give.
MegatronArguments megatronArguments(const Graph& graph, const Plan& plan, int globalBatch);

/// The arguments as one shell line per flag, joined by " \\\n".
std::string megatronCommandLine(const MegatronArguments& arguments);

} // namespace shardscope
