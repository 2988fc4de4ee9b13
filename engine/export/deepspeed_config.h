#pragma once
// A plan as a DeepSpeed configuration JSON (deepspeed.initialize(config=...)): data parallelism with
// ZeRO stage 0-3 over every device, the batch split into micro-batches by gradient accumulation, the
// gradient bucket and overlap, the training precision. DeepSpeed's config expresses that layout only:
// tensor and pipeline parallelism and activation recomputation live in the model's code
// (Megatron-DeepSpeed, PipelineModule, deepspeed.checkpointing), so such plans are refused with the
// reason, as are plans whose ops are not all data parallel.
//
// Example: zero3 on data=64, batch 512 in 2 micro-batches: {"train_batch_size": 512,
// "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2, "zero_optimization":
// {"stage": 3, "overlap_comm": true, "contiguous_gradients": true, "reduce_bucket_size": 25000000},
// "bf16": {"enabled": true}}.

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <string>

namespace shardscope {

/// The DeepSpeed configuration of `plan` for `graph` (one micro-batch's graph) with `globalBatch`
/// samples per step, as JSON text. Throws InputError naming what DeepSpeed's config cannot express.
std::string deepspeedConfig(const Graph& graph, const Plan& plan, int globalBatch);

} // namespace shardscope
