#include "engine/builders/transformer_parts.h"

#include "engine/util/error.h"

#include <numeric>

namespace shardscope::transformer {

Dims checkedDims(const ModelParams& p, int microBatch, bool moe) {
    const std::string where = "model parameters: ";
    const TransformerArch& a = p.arch;
    if (a.headDim == 0 && p.hidden % p.heads != 0)
        throw InputError(where + "heads=" + std::to_string(p.heads) + " does not divide hidden=" +
                         std::to_string(p.hidden) + " (set head_dim for models whose heads are sized apart)");
    if (p.heads % p.kvHeadCount() != 0)
        throw InputError(where + "kv_heads=" + std::to_string(p.kvHeadCount()) + " does not divide heads=" +
                         std::to_string(p.heads));
    if (a.latentAttention() && a.ropeDim == 0)
        throw InputError(where + "kv_lora_rank needs rope_dim (the rotary part of each query and key head)");
    const I headSize = a.headDim > 0 ? a.headDim : p.hidden / p.heads;
    Dims d{microBatch, p.seq, p.hidden, p.heads, p.kvHeadCount(), p.heads / p.kvHeadCount(), headSize,
           p.ffnSize(), p.vocab, p.experts, p.topK, p.dropout, a};
    if (moe) {
        if (p.topK > p.experts)
            throw InputError(where + "top_k=" + std::to_string(p.topK) + " exceeds experts=" + std::to_string(p.experts));
        if (a.denseLayers > p.layers)
            throw InputError(where + "dense_layers=" + std::to_string(a.denseLayers) + " exceeds layers=" +
                             std::to_string(p.layers));
    }
    return d;
}

OpHints hints(const char* batch, const char* tensor, const char* sequence, const char* expert) {
    return OpHints{batch, tensor, sequence, expert};
}

TensorId norm(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block, const Dims& d, bool layer) {
    const TensorId w = gb.param(name + ".weight", {d.h});
    if (!layer)
        return gb.op(name, OpKind::RmsNorm, "([b,s,h],[h])->([b,s,h]) {h:local}", {x, w}, {d.b, d.s, d.h}, block,
                     hints("b", "", "s"));
    const TensorId bias = gb.param(name + ".bias", {d.h});
    return gb.op(name, OpKind::LayerNorm, "([b,s,h],[h],[h])->([b,s,h]) {h:local}", {x, w, bias}, {d.b, d.s, d.h},
                 block, hints("b", "", "s"));
}

TensorId residual(GraphBuilder& gb, TensorId a, TensorId b, const std::string& name, const std::string& block,
                  const Dims& d) {
    return gb.op(name, OpKind::Add, "([b,s,h],[b,s,h])->([b,s,h])", {a, b}, {d.b, d.s, d.h}, block, hints("b", "", "s"));
}

TensorId hiddenDropout(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block, const Dims& d) {
    if (!d.dropout)
        return x;
    return gb.op(name, OpKind::Dropout, "([b,s,h])->([b,s,h])", {x}, {d.b, d.s, d.h}, block, hints("b", "", "s"));
}

namespace {

/// `rule`'s inputs with a bias operand `biasDims` appended, and `inputs` with its parameter, when `bias`.
std::string withBias(GraphBuilder& gb, bool bias, const std::string& name, const std::string& inputs,
                     const std::string& biasDims, std::vector<std::int64_t> biasShape, std::vector<TensorId>& operands) {
    if (!bias)
        return inputs;
    operands.push_back(gb.param(name + ".bias", std::move(biasShape)));
    return inputs + ",[" + biasDims + "]";
}

void markAttentionCore(GraphBuilder& gb, TensorId t, bool causal, I window) {
    Op& op = gb.producerOf(t);
    op.attentionCore = true;
    op.causal = causal;
    op.window = window;
}

/// Scores, softmax (and dropout), context of one attention: `q` [b,s,n..,e], `k` [b,t,n..,e] and
/// `v` [b,t,n..,c] by the rules given (head factors and sizes as the caller lays them out); each query
/// sees its `window` most recent keys (0: all). With attention sinks the softmax reads a learned logit
/// per head, `sinkDims` of the probabilities' factors.
TensorId attentionCore(GraphBuilder& gb, const std::string& p, const Dims& d, I window, TensorId q, TensorId k,
                       TensorId v, const std::string& scoresRule, const std::string& probsDims, std::vector<I> probsShape,
                       const std::string& contextRule, std::vector<I> contextShape, const char* heads,
                       const std::string& sinkDims = "", std::vector<I> sinkShape = {}) {
    const TensorId scores = gb.op(p + ".scores", OpKind::MatMul, scoresRule, {q, k}, probsShape, p, hints("b", heads));
    const std::string probs = "([" + probsDims + "])->([" + probsDims + "])";
    TensorId pr;
    if (d.arch.attentionSinks && !sinkDims.empty())
        pr = gb.op(p + ".softmax", OpKind::Softmax, "([" + probsDims + "],[" + sinkDims + "])->([" + probsDims + "]) {t:local}",
                   {scores, gb.param(p + ".sinks", std::move(sinkShape))}, probsShape, p, hints("b", heads));
    else
        pr = gb.op(p + ".softmax", OpKind::Softmax, probs + " {t:local}", {scores}, probsShape, p, hints("b", heads));
    markAttentionCore(gb, pr, false, window);
    if (d.dropout) {
        pr = gb.op(p + ".dropout_probs", OpKind::Dropout, probs, {pr}, probsShape, p, hints("b", heads));
        markAttentionCore(gb, pr, false, window);
    }
    const TensorId ctx = gb.op(p + ".context", OpKind::MatMul, contextRule, {pr, v}, contextShape, p, hints("b", heads));
    markAttentionCore(gb, scores, true, window);
    markAttentionCore(gb, ctx, true, window);
    return ctx;
}

} // namespace

TensorId attention(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I window) {
    const TransformerArch& a = d.arch;
    const I j = d.r + 2;
    std::vector<TensorId> in{x, gb.param(p + ".qkv.weight", {d.h, d.g, j, d.d})};
    const std::string qkvIn = withBias(gb, a.qkvBias || a.linearBias, p + ".qkv", "[b,s,h],[h,g,j,d]", "g,j,d",
                                       {d.g, j, d.d}, in);
    const TensorId qkv = gb.op(p + ".qkv", OpKind::MatMul, "(" + qkvIn + ")->([b,s,g,j,d])", in, {d.b, d.s, d.g, j, d.d},
                               p, hints("b", "g"));
    TensorId q = gb.op(p + ".q", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,r,d]) {j:fixed,r:fixed}", {qkv},
                       {d.b, d.s, d.g, d.r, d.d}, p, hints("b", "g"));
    TensorId k = gb.op(p + ".k", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,d]) {j:fixed}", {qkv}, {d.b, d.s, d.g, d.d}, p,
                       hints("b", "g"));
    const TensorId v = gb.op(p + ".v", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,d]) {j:fixed}", {qkv},
                             {d.b, d.s, d.g, d.d}, p, hints("b", "g"));
    if (a.qkNorm) {
        q = gb.op(p + ".q_norm", OpKind::RmsNorm, "([b,s,g,r,d],[d])->([b,s,g,r,d]) {d:local}",
                  {q, gb.param(p + ".q_norm.weight", {d.d})}, {d.b, d.s, d.g, d.r, d.d}, p, hints("b", "g"));
        k = gb.op(p + ".k_norm", OpKind::RmsNorm, "([b,s,g,d],[d])->([b,s,g,d]) {d:local}",
                  {k, gb.param(p + ".k_norm.weight", {d.d})}, {d.b, d.s, d.g, d.d}, p, hints("b", "g"));
    }
    const TensorId ctx = attentionCore(gb, p, d, window, q, k, v, "([b,s,g,r,d],[b,t,g,d])->([b,g,r,s,t])", "b,g,r,s,t",
                                       {d.b, d.g, d.r, d.s, d.s}, "([b,g,r,s,t],[b,t,g,d])->([b,s,g,r,d])",
                                       {d.b, d.s, d.g, d.r, d.d}, "g", "g,r", {d.g, d.r});
    std::vector<TensorId> out{ctx, gb.param(p + ".proj.weight", {d.g, d.r, d.d, d.h})};
    const std::string projIn = withBias(gb, a.linearBias, p + ".proj", "[b,s,g,r,d],[g,r,d,h]", "h", {d.h}, out);
    return gb.op(p + ".proj", OpKind::MatMul, "(" + projIn + ")->([b,s,h])", out, {d.b, d.s, d.h}, p, hints("b", "g"));
}

TensorId latentAttention(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I window) {
    const TransformerArch& a = d.arch;
    const I nope = d.d, rope = a.ropeDim, qk = nope + rope, vd = a.vHeadDim > 0 ? a.vHeadDim : d.d;
    const I latent = a.kvLoraRank;
    // Queries: [b,s,n,qk], through a normalised latent of rank q_lora_rank when the model has one.
    TensorId q;
    if (a.qLoraRank > 0) {
        const I ql = a.qLoraRank;
        TensorId c = gb.op(p + ".q_a", OpKind::MatMul, "([b,s,h],[h,l])->([b,s,l])", {x, gb.param(p + ".q_a.weight", {d.h, ql})},
                           {d.b, d.s, ql}, p, hints("b", ""));
        c = gb.op(p + ".q_a_norm", OpKind::RmsNorm, "([b,s,l],[l])->([b,s,l]) {l:local}",
                  {c, gb.param(p + ".q_a_norm.weight", {ql})}, {d.b, d.s, ql}, p, hints("b", ""));
        q = gb.op(p + ".q_b", OpKind::MatMul, "([b,s,l],[l,n,e])->([b,s,n,e])", {c, gb.param(p + ".q_b.weight", {ql, d.n, qk})},
                  {d.b, d.s, d.n, qk}, p, hints("b", "n"));
    } else {
        q = gb.op(p + ".q", OpKind::MatMul, "([b,s,h],[h,n,e])->([b,s,n,e])", {x, gb.param(p + ".q.weight", {d.h, d.n, qk})},
                  {d.b, d.s, d.n, qk}, p, hints("b", "n"));
    }
    // Keys and values: one compressed latent and one rotary key per token, shared by the heads.
    const TensorId kv = gb.op(p + ".kv_a", OpKind::MatMul, "([b,s,h],[h,c])->([b,s,c])",
                              {x, gb.param(p + ".kv_a.weight", {d.h, latent + rope})}, {d.b, d.s, latent + rope}, p,
                              hints("b", ""));
    TensorId c = gb.op(p + ".kv_latent", OpKind::Slice, "([b,s,c])->([b,s,l]) {c:fixed,l:fixed}", {kv}, {d.b, d.s, latent},
                       p, hints("b", ""));
    const TensorId kRope = gb.op(p + ".k_rope", OpKind::Slice, "([b,s,c])->([b,s,p]) {c:fixed,p:fixed}", {kv},
                                 {d.b, d.s, rope}, p, hints("b", ""));
    c = gb.op(p + ".kv_a_norm", OpKind::RmsNorm, "([b,s,l],[l])->([b,s,l]) {l:local}",
              {c, gb.param(p + ".kv_a_norm.weight", {latent})}, {d.b, d.s, latent}, p, hints("b", ""));
    const TensorId kvb = gb.op(p + ".kv_b", OpKind::MatMul, "([b,s,l],[l,n,m])->([b,s,n,m])",
                               {c, gb.param(p + ".kv_b.weight", {latent, d.n, nope + vd})}, {d.b, d.s, d.n, nope + vd}, p,
                               hints("b", "n"));
    const TensorId kNope = gb.op(p + ".k_nope", OpKind::Slice, "([b,s,n,m])->([b,s,n,q]) {m:fixed,q:fixed}", {kvb},
                                 {d.b, d.s, d.n, nope}, p, hints("b", "n"));
    const TensorId v = gb.op(p + ".v", OpKind::Slice, "([b,s,n,m])->([b,s,n,c]) {m:fixed,c:fixed}", {kvb},
                             {d.b, d.s, d.n, vd}, p, hints("b", "n"));
    const TensorId k = gb.op(p + ".k", OpKind::Concat, "([b,s,n,q],[b,s,p])->([b,s,n,e]) {q:fixed,p:fixed,e:fixed}",
                             {kNope, kRope}, {d.b, d.s, d.n, qk}, p, hints("b", "n"));
    const TensorId ctx = attentionCore(gb, p, d, window, q, k, v, "([b,s,n,e],[b,t,n,e])->([b,n,s,t])", "b,n,s,t",
                                       {d.b, d.n, d.s, d.s}, "([b,n,s,t],[b,t,n,c])->([b,s,n,c])", {d.b, d.s, d.n, vd}, "n",
                                       "n", {d.n});
    return gb.op(p + ".proj", OpKind::MatMul, "([b,s,n,c],[n,c,h])->([b,s,h])", {ctx, gb.param(p + ".proj.weight", {d.n, vd, d.h})},
                 {d.b, d.s, d.h}, p, hints("b", "n"));
}

TensorId mlp(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d, I f, bool gated) {
    const bool bias = d.arch.linearBias;
    if (!gated) {
        std::vector<TensorId> in{x, gb.param(p + ".fc1.weight", {d.h, f})};
        const std::string up = withBias(gb, bias, p + ".fc1", "[b,s,h],[h,f]", "f", {f}, in);
        const TensorId h1 = gb.op(p + ".fc1", OpKind::MatMul, "(" + up + ")->([b,s,f])", in, {d.b, d.s, f}, p, hints("b", "f"));
        const TensorId act = gb.op(p + ".gelu", OpKind::Gelu, "([b,s,f])->([b,s,f])", {h1}, {d.b, d.s, f}, p, hints("b", "f"));
        std::vector<TensorId> out{act, gb.param(p + ".fc2.weight", {f, d.h})};
        const std::string down = withBias(gb, bias, p + ".fc2", "[b,s,f],[f,h]", "h", {d.h}, out);
        return gb.op(p + ".fc2", OpKind::MatMul, "(" + down + ")->([b,s,h])", out, {d.b, d.s, d.h}, p, hints("b", "f"));
    }
    std::vector<TensorId> in{x, gb.param(p + ".gate_up.weight", {d.h, 2, f})};
    const std::string up = withBias(gb, bias, p + ".gate_up", "[b,s,h],[h,k,f]", "k,f", {2, f}, in);
    const TensorId h1 = gb.op(p + ".gate_up", OpKind::MatMul, "(" + up + ")->([b,s,k,f]) {k:fixed}", in, {d.b, d.s, 2, f},
                              p, hints("b", "f"));
    const TensorId act = gb.op(p + ".swiglu", OpKind::SwiGlu, "([b,s,k,f])->([b,s,f]) {k:fixed}", {h1}, {d.b, d.s, f}, p,
                               hints("b", "f"));
    std::vector<TensorId> out{act, gb.param(p + ".down.weight", {f, d.h})};
    const std::string down = withBias(gb, bias, p + ".down", "[b,s,f],[f,h]", "h", {d.h}, out);
    return gb.op(p + ".down", OpKind::MatMul, "(" + down + ")->([b,s,h])", out, {d.b, d.s, d.h}, p, hints("b", "f"));
}

namespace {

/// The shared experts' output (their gated MLP, scaled by a sigmoid gate when the model has one).
TensorId sharedExperts(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const TransformerArch& a = d.arch;
    const I f = I(a.sharedExperts) * (a.sharedFfn > 0 ? a.sharedFfn : d.f);
    TensorId y = mlp(gb, x, p, d, f, true);
    if (!a.sharedGate)
        return y;
    const TensorId gate = gb.op(p + ".gate", OpKind::MatMul, "([b,s,h],[h])->([b,s])", {x, gb.param(p + ".gate.weight", {d.h})},
                                {d.b, d.s}, p, hints("b", ""));
    return gb.op(p + ".scale", OpKind::Mul, "([b,s,h],[b,s])->([b,s,h])", {y, gate}, {d.b, d.s, d.h}, p, hints("b", "", "s"));
}

/// How tokens fill the experts' slots: T tokens = c groups of q; each group fills m slots of every
/// expert, so an expert has C = c m slots.
struct SlotLayout {
    I q, m;
};

/// Capacity factor 1 (C = T k / e) when the tokens deal evenly: q = e / gcd(e, k), m = k / gcd(e, k)
/// (m = 1 when k divides e). Otherwise the least capacity C >= T k / e over groups q dividing T
/// (Qwen1.5-MoE: 60 experts, top-4, 32,768 tokens: q = 2048, m = 137, C = 2,192 for 2,184.5). Of equal
/// capacities the smallest q is kept: more token groups to split.
SlotLayout slotLayout(I tokens, I e, I k) {
    const I q = e / std::gcd(e, k), m = k / std::gcd(e, k);
    if (tokens % q == 0)
        return {q, m};
    SlotLayout best{1, k};
    for (I g = 1; g <= tokens && g <= 64 * e; ++g)
        if (tokens % g == 0) {
            const I mg = (k * g + e - 1) / e;
            if ((tokens / g) * mg < (tokens / best.q) * best.m)
                best = {g, mg};
        }
    return best;
}

} // namespace

/// Tokens [T,h] are routed top-k into capacity slots [e, C, h]. The token dimension is written (c, q)
/// and the slots (c, m) (slotLayout), so a split of the tokens is a split of the slots: with tokens
/// over `data` and experts over `data`, dispatch and combine become all-to-alls by resharding.
TensorId moeFfn(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const I tokens = d.b * d.s;
    const auto [q, m] = slotLayout(tokens, d.e, d.k);
    const I capacity = tokens / q * m;
    const std::string tok = q == 1 ? "c" : "(c,q)";
    const std::string slots = m == 1 ? "c" : "(c,m)";
    // Sizes of q and m given: with both dimensions compound, the shapes alone do not fix them.
    const std::string qText = q == 1 ? "" : "q=" + std::to_string(q) + ":fixed";
    const std::string mText = m == 1 ? "" : "m=" + std::to_string(m) + ":fixed";
    const std::string fixedM = qText + (!qText.empty() && !mText.empty() ? "," : "") + mText;
    const std::string fixedText = fixedM.empty() ? "" : " {" + fixedM + "}";
    const TensorId t = gb.op(p + ".tokens", OpKind::Reshape, "([b,s,h])->([(b,s),h])", {x}, {tokens, d.h}, p,
                             hints("b", "", "s"));
    const bool bias = d.arch.expertBias;
    std::vector<TensorId> routerIn{t, gb.param(p + ".router.weight", {d.h, d.e})};
    const std::string router = withBias(gb, bias, p + ".router", "[t,h],[h,e]", "e", {d.e}, routerIn);
    const TensorId logits = gb.op(p + ".router", OpKind::MatMul, "(" + router + ")->([t,e])", routerIn, {tokens, d.e}, p,
                                  hints("t", ""));
    const TensorId gate = gb.op(p + ".gate", OpKind::Softmax, "([t,e])->([t,e]) {e:local}", {logits}, {tokens, d.e}, p,
                                hints("t", ""));
    const TensorId routed = gb.op(p + ".dispatch", OpKind::Dispatch,
                                  "([" + tok + ",h],[" + tok + ",e])->([e," + slots + ",h])" + fixedText, {t, gate},
                                  {d.e, capacity, d.h}, p, hints("c", "", "", "e"));
    std::vector<TensorId> upIn{routed, gb.param(p + ".experts.gate_up.weight", {d.e, d.h, 2, d.f})};
    const std::string up = withBias(gb, bias, p + ".experts.gate_up", "[e,c,h],[e,h,k,f]", "e,k,f", {d.e, 2, d.f}, upIn);
    const TensorId h1 = gb.op(p + ".experts.gate_up", OpKind::MatMul, "(" + up + ")->([e,c,k,f]) {k:fixed}", upIn,
                              {d.e, capacity, 2, d.f}, p, hints("c", "f", "", "e"));
    const TensorId act = gb.op(p + ".experts.swiglu", OpKind::SwiGlu, "([e,c,k,f])->([e,c,f]) {k:fixed}", {h1},
                               {d.e, capacity, d.f}, p, hints("c", "f", "", "e"));
    std::vector<TensorId> downIn{act, gb.param(p + ".experts.down.weight", {d.e, d.f, d.h})};
    const std::string down = withBias(gb, bias, p + ".experts.down", "[e,c,f],[e,f,h]", "e,h", {d.e, d.h}, downIn);
    const TensorId out = gb.op(p + ".experts.down", OpKind::MatMul, "(" + down + ")->([e,c,h])", downIn,
                               {d.e, capacity, d.h}, p, hints("c", "f", "", "e"));
    const TensorId combined = gb.op(p + ".combine", OpKind::Combine,
                                    "([e," + slots + ",h],[" + tok + ",e])->([" + tok + ",h])" + fixedText, {out, gate},
                                    {tokens, d.h}, p, hints("c", ""));
    TensorId y = gb.op(p + ".untokens", OpKind::Reshape, "([(b,s),h])->([b,s,h])", {combined}, {d.b, d.s, d.h}, p,
                       hints("b", "", "s"));
    if (d.arch.sharedExperts > 0)
        y = residual(gb, y, sharedExperts(gb, x, p + ".shared", d), p + ".with_shared", p, d);
    return y;
}

} // namespace shardscope::transformer
