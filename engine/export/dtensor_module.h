#pragma once
// A plan as a Python module for PyTorch DTensor: init_device_mesh over the plan's axes, a
// parallelize_module plan of ColwiseParallel / RowwiseParallel / SequenceParallel per module (the
// plan's tensor-parallel axis, see dtensor_styles.h), fully_shard per layer for ZeRO-2/3 (FSDP2,
// resharding after forward at ZeRO-3) or replicate for plain data parallelism, checkpoint_wrapper
// per layer for full recomputation, and with a pipe axis the modules of each model chunk and the
// torch.distributed.pipelining schedule. Module names are the graph's op names; layers that agree
// are written once as "layers.*.x" (parallelize_module matches wildcards from PyTorch 2.4).
//
// Example: megatron-sp+zero3 on data=8,model=8: TP_PLAN["layers.*.mlp.fc1"] =
// ColwiseParallel(input_layouts=Shard(1), output_layouts=Replicate()), DATA_PARALLEL = "fully_shard",
// RESHARD_AFTER_FORWARD = True.

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <string>

namespace shardscope {

/// The module's text for `plan` on `graph`. Throws InputError naming what DTensor cannot express:
/// axes other than pipe, data and model, a data axis that splits more than the batch, ZeRO-1 (FSDP2
/// shards parameters too), ZeRO over other axes, attention-only recomputation, an op no module style
/// covers.
std::string dtensorModule(const Graph& graph, const Plan& plan);

} // namespace shardscope
