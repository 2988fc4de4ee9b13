#pragma once
// A plan as a Python module for JAX (GSPMD): the mesh (jax.make_mesh) and a PartitionSpec per
// parameter and per activation the plan fixes, by tensor name, so any per-op plan, searched or
// edited by hand, carries over, not only the frameworks' named layouts. Each parameter takes the
// sharding of its first consumer; with ZeRO the optimizer state (ZeRO >= 1) and, ZeRO-3, the
// parameters themselves are also split over the ZeRO axes on their first dimension that divides.
// Activations are the ops' outputs without their partial sums (the constraint makes JAX reduce
// them, as the plan's resharding does). A pipe axis is refused: jax.sharding has no pipeline
// schedule.
//
// Example: megatron on data=8,model=8: PARAM_SPECS["layers.0.attn.qkv.weight"] = P(None, "model"),
// ACTIVATION_SPECS["layers.0.attn.qkv.out"] = P("data", None, "model").

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <string>

namespace shardscope {

/// The module's text for `plan` on `graph`. Throws InputError for a plan JAX cannot run as given (a
/// pipe axis).
std::string jaxModule(const Graph& graph, const Plan& plan);

/// "P(None, \"model\")": the PartitionSpec of `sharding`'s dimensions on `mesh`.
std::string partitionSpec(const TensorSharding& sharding, const Mesh& mesh);

} // namespace shardscope
