#pragma once
// What the forward keeps for the backward, as the frameworks keep it (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", section 4).
//
// A tensor is kept once, however many ops read it, and is charged to the op that produces it at
// that op's output sharding (a graph input: to its first reader, at the reader's input sharding).
// It is kept when
//   - its producer's backward needs it (softmax keeps its output, not its input), or
//   - a reader's backward needs it (a linear's input for the weight gradient, GeLU's input), or
//   - a recomputed reader needs it to recompute from, and it comes from outside the reader's
//     recomputed region (a checkpoint).
// Dropout keeps a one-byte mask per element. Sequence parallelism therefore keeps the shard that the
// norm produced, not the gathered input of the column-parallel linear; the linear re-gathers it in its
// backward, as Megatron-LM does (CostModel::forwardPasses).
//
// Recomputation (docs/DESIGN.md, Costs): selective recomputes the attention core and keeps its inputs
// (Q, K, V); full recomputes every op of each repeated block (the layers found by
// findRepeatedBlocks; the ops' `block` names when the graph has none) and keeps one checkpoint per
// block, its input. While one block is recomputed in its backward, everything it would have kept is
// live again: that working set is charged as 1/L of what all L blocks would keep, which is exact
// when the blocks are alike. Ops outside the blocks (embedding, head, loss) are not recomputed.
// The fused attention kernel (FlashAttention) keeps what selective recomputation keeps of the core,
// Q, K and V and its output, and no s x s tensor or dropout mask (its few bytes of row statistics,
// 4as b, are left out); its backward recomputes the scores and probabilities, not the output.
//
// Under FP8 (precision.h) a tensor kept only for FP8 GEMMs' weight gradients is kept as their FP8
// copy (Transformer Engine saves the quantized input, not the BF16 one): one byte per element, MXFP8
// with its scales; a tensor some other reader or its producer also needs stays in BF16.
//
// Worked example, one GPT layer, s x b tokens, hidden h, a heads, bf16, no dropout, no parallelism:
// norm1 input 2sbh, QKV input 2sbh, Q K V 6sbh, softmax output 2as^2b, projection input 2sbh, norm2
// input 2sbh, fc1 input 2sbh, GeLU input 8sbh, fc2 input 8sbh: sbh(32 + 2as/h) bytes.

#include "engine/cost/step_settings.h"
#include "engine/ir/graph.h"

#include <compare>
#include <cstddef>
#include <vector>

namespace shardscope {

/// The recomputation region of each op under full recomputation (-1: never recomputed), and how many.
struct RecomputeUnits {
    std::vector<int> unitOf;
    int count = 0;
};

/// The repeated blocks of `graph` as recomputation regions; without repeated blocks, one region per
/// distinct non-empty `block` name.
RecomputeUnits recomputeUnits(const Graph& graph);

/// True when op `op` is recomputed in the backward under `recompute`, or inside the fused attention
/// kernel's backward (then it keeps nothing of its own either).
bool isRecomputed(const Op& op, int unit, Recompute recompute, AttentionKernel attention);

/// True when the backward of `op` reads its input `k` (a non-parameter operand): contractions and
/// lookups need an input only to differentiate another input, element-wise ops and norms need it
/// whenever their kind says so. `needsGradient` is per tensor.
bool readsInputInBackward(const Graph& graph, const Op& op, std::size_t k, const std::vector<bool>& needsGradient);

/// The tensors one op is charged for keeping.
struct SavedByOp {
    std::vector<std::size_t> outputs; ///< output slots, at the op's output sharding
    std::vector<std::size_t> inputs;  ///< input slots (graph inputs only), at the op's input sharding
    std::vector<std::size_t> fp8Outputs; ///< output slots kept as an FP8 copy only (fp8Readers)
    std::vector<std::size_t> fp8Inputs;  ///< input slots kept as an FP8 copy only
    bool mask = false;                ///< its dropout mask, maskBytesPerElement per output element

    auto operator<=>(const SavedByOp&) const = default;
};

/// Per op: what it keeps, and what it holds again while its block is recomputed.
struct SavedActivations {
    std::vector<SavedByOp> kept;
    std::vector<SavedByOp> workspace; ///< charged at workspaceWeight; empty lists unless full recomputation
    double workspaceWeight = 0;       ///< 1 / number of recomputation regions
};

/// What every op of `graph` keeps under `recompute` and `attention`. `fp8Readers` (per op, or empty)
/// marks the FP8 GEMMs (fp8_gemms.h): a tensor only they read in their backward is kept in FP8.
SavedActivations savedActivations(const Graph& graph, const RecomputeUnits& units, Recompute recompute,
                                  AttentionKernel attention, const std::vector<bool>& needsGradient,
                                  const std::vector<bool>& fp8Readers = {});

} // namespace shardscope
