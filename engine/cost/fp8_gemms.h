#pragma once
// Which GEMMs run in FP8 under an FP8 precision (docs/DESIGN.md, Precision).

#include "engine/cost/saved_activations.h"
#include "engine/ir/graph.h"

#include <vector>

namespace shardscope {

/// Per op: true for the linear layers of the repeated blocks, the contractions (MatMul) with a
/// parameter operand inside a recomputation unit, outside the attention core. These are the GEMMs
/// Transformer Engine's Linear / LayerNormLinear / LayerNormMLP and torchao's Float8Linear run in FP8;
/// the embedding, the LM head (Megatron's output layer is a plain ColumnParallelLinear, torchtitan's
/// float8 filter skips "output") and attention stay in BF16.
std::vector<bool> fp8Gemms(const Graph& graph, const RecomputeUnits& units);

} // namespace shardscope
