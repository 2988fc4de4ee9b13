#pragma once
// The parts the transformer builders assemble: norms, residuals, attention (grouped-query, with the
// Hugging Face families' biases, head sizes and query/key norms, or DeepSeek's multi-head latent
// attention), MLPs (gated or plain), routed experts with shared experts. Each adds its ops and
// parameters under the name prefix it is given and returns its output tensor.

#include "engine/builders/graph_builder.h"
#include "engine/builders/model_params.h"

namespace shardscope::transformer {

using I = std::int64_t;

/// Sizes shared by the parts of one transformer.
struct Dims {
    I b, s, h, n, g, r, d, f, v, e, k;
    bool dropout;
    TransformerArch arch;
};

/// The sizes of `p` for micro-batches of `microBatch` sequences; `moe` checks the routing sizes too.
/// Throws InputError naming the parameter that does not fit.
Dims checkedDims(const ModelParams& p, int microBatch, bool moe);

/// OpHints of the factors the baselines split.
OpHints hints(const char* batch, const char* tensor, const char* sequence = "", const char* expert = "");

/// RMSNorm (scale) or, with `layer`, LayerNorm (scale and bias) of [b,s,h] `x`.
TensorId norm(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block, const Dims& d, bool layer);
/// `a` + `b` over [b,s,h].
TensorId residual(GraphBuilder& gb, TensorId a, TensorId b, const std::string& name, const std::string& block,
                  const Dims& d);
/// Dropout of a [b,s,h] sub-block output when the model has dropout; else `x`.
TensorId hiddenDropout(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block, const Dims& d);

/// Grouped-query attention with fused QKV laid out per KV group [h, g, r + 2, d] (g = heads, r = 1:
/// multi-head). Biases, query/key norms and attention sinks as the architecture says; each query sees
/// its `window` most recent keys (0: all).
TensorId attention(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I window);
/// DeepSeek's multi-head latent attention: queries through an optional low-rank latent, keys and
/// values from a shared compressed latent plus one rotary key per token, expanded per head.
TensorId latentAttention(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I window);

/// A gated MLP (gate x up, then down) of intermediate size `f`, or with `!gated` up, GELU, down;
/// biases when the architecture has them.
TensorId mlp(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I f, bool gated);
/// Routed experts (top-k of e, capacity factor 1, biased router and experts when the architecture
/// says) plus the architecture's shared experts.
TensorId moeFfn(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d);

} // namespace shardscope::transformer
