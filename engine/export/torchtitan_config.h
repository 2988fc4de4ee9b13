#pragma once
// A plan as torchtitan's job configuration (its TOML file's [training], [parallelism] and
// [activation_checkpoint] sections). torchtitan's layout per degree: FSDP2 over the data axis
// (fully_shard: ZeRO-3; with fsdp_reshard_after_forward = "never" the parameters stay gathered from
// forward to backward, ZeRO-2) or plain replication (ZeRO-0, data_parallel_replicate_degree), tensor
// parallelism with sequence parallelism in the norms (the megatron-sp layout), pipeline stages of
// equal layer counts. Plans outside that are refused with the reason: ZeRO-1, ops off the layout,
// uneven or interleaved cuts, Megatron's attention-only selective recomputation (torchtitan's
// selective checkpointing is a per-op or every-n-layers policy), other axes.
//
// Example: megatron-sp+zero3 on pipe=4,data=8,model=8, 1024 sequences of 4096 in 32 micro-batches,
// 1F1B, full recomputation: local_batch_size 128, global_batch_size 1024, data_parallel_shard_degree
// 8, tensor_parallel_degree 8, pipeline_parallel_degree 4, pipeline_parallel_schedule "1F1B",
// pipeline_parallel_microbatch_size 4, mode "full".

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <string>

namespace shardscope {

/// The torchtitan TOML of `plan` for `graph` (one micro-batch's graph) with `globalBatch` sequences of
/// `seqLen` tokens per step. Throws InputError naming what torchtitan cannot express.
std::string torchtitanConfig(const Graph& graph, const Plan& plan, int globalBatch, int seqLen);

} // namespace shardscope
