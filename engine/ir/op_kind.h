#pragma once
// Op kinds and the per-kind facts the cost model needs (FLOPs per element, what the backward saves).

#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {

enum class OpKind {
    MatMul,       ///< any contraction (einsum) expressed by its rule
    Conv2d,       ///< convolution; a contraction over channels and the kernel window
    Embedding,    ///< table lookup; the table's row factor is a gather factor
    Add,          ///< element-wise sum (residual)
    Mul,          ///< element-wise product
    Gelu,         ///< element-wise activation
    Relu,         ///< element-wise activation
    Silu,         ///< element-wise activation
    SwiGlu,       ///< silu(gate) * up over a fused [.., 2, f] input
    LayerNorm,    ///< normalisation over a local-reduction factor, with scale and bias
    RmsNorm,      ///< normalisation over a local-reduction factor, with scale
    BatchNorm,    ///< per-channel normalisation (statistics per device)
    Softmax,      ///< softmax over a local-reduction factor
    CrossEntropy, ///< loss over the class factor (local-reduction)
    MseLoss,      ///< squared-error loss over the feature factor (local-reduction)
    Reshape,      ///< layout: maps factors across a change of shape
    Transpose,    ///< layout: permutes dimensions
    Slice,        ///< layout: selects a part along fixed factors
    Concat,       ///< layout: joins inputs along a dimension
    Pool,         ///< max / average pooling (a reduction over the window or the spatial dims)
    Dispatch,     ///< MoE: routes tokens to expert capacity slots
    Combine,      ///< MoE: weighted sum of expert outputs back to tokens
    Dropout,      ///< element-wise random zeroing; the backward needs only its one-byte mask
    Opaque,       ///< an imported op without a sharding rule: kept whole (replicated), priced by its bytes
};

/// How the cost model treats an op kind.
enum class OpCategory { Contraction, Elementwise, Normalization, Layout, Lookup, Loss, Movement };

/// Per-kind facts used for FLOPs, bytes and the backward pass.
struct OpKindTraits {
    OpCategory category;
    double flopsPerElement;     ///< forward FLOPs per output element (non-contractions)
    double statisticsPerRow;    ///< values all-reduced per row when a local-reduction factor is split
    bool savesInputs;           ///< the backward needs the op's inputs
    bool savesOutput;           ///< the backward needs the op's output (softmax)
    double maskBytesPerElement; ///< bytes per output element of a mask the backward needs (dropout: 1)
};

/// The file name of `k`, e.g. "matmul", "layernorm".
std::string_view opKindName(OpKind k);
/// Parses an op kind name; nullopt if unknown.
std::optional<OpKind> parseOpKind(std::string_view name);
/// Every kind name, for error messages listing the valid ones.
std::vector<std::string_view> opKindNames();
/// The cost-model facts of `k`.
const OpKindTraits& opKindTraits(OpKind k);

} // namespace shardscope
