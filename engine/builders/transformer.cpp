// GPT, Llama and MoE graphs built from shared transformer parts.

#include "engine/builders/builders.h"
#include "engine/builders/graph_builder.h"
#include "engine/util/error.h"

namespace shardscope {

namespace {

using I = std::int64_t;

/// Sizes shared by the parts of one transformer.
struct Dims {
    I b, s, h, n, g, r, d, f, v, e, k;
    bool dropout;
};

enum class Family { Gpt, Llama, Moe };

Dims checkedDims(const ModelParams& p, int microBatch, Family family) {
    const std::string where = "model parameters: ";
    if (p.hidden % p.heads != 0)
        throw InputError(where + "heads=" + std::to_string(p.heads) + " does not divide hidden=" +
                         std::to_string(p.hidden));
    if (p.heads % p.kvHeadCount() != 0)
        throw InputError(where + "kv_heads=" + std::to_string(p.kvHeadCount()) + " does not divide heads=" +
                         std::to_string(p.heads));
    Dims d{microBatch, p.seq, p.hidden, p.heads, p.kvHeadCount(), p.heads / p.kvHeadCount(),
           p.hidden / p.heads, p.ffnSize(), p.vocab, p.experts, p.topK, p.dropout};
    if (family == Family::Moe) {
        if (p.topK > p.experts || p.experts % p.topK != 0)
            throw InputError(where + "top_k=" + std::to_string(p.topK) + " must divide experts=" +
                             std::to_string(p.experts));
        if ((d.b * d.s * d.k) % d.e != 0)
            throw InputError(where + "tokens x top_k must be a multiple of experts");
    }
    return d;
}

OpHints hints(const char* batch, const char* tensor, const char* sequence = "", const char* expert = "") {
    return OpHints{batch, tensor, sequence, expert};
}

TensorId norm(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block, const Dims& d,
              bool rms) {
    if (rms) {
        const TensorId w = gb.param(name + ".weight", {d.h});
        return gb.op(name, OpKind::RmsNorm, "([b,s,h],[h])->([b,s,h]) {h:local}", {x, w}, {d.b, d.s, d.h}, block,
                     hints("b", "", "s"));
    }
    const TensorId w = gb.param(name + ".weight", {d.h});
    const TensorId bias = gb.param(name + ".bias", {d.h});
    return gb.op(name, OpKind::LayerNorm, "([b,s,h],[h],[h])->([b,s,h]) {h:local}", {x, w, bias}, {d.b, d.s, d.h},
                 block, hints("b", "", "s"));
}

TensorId residual(GraphBuilder& gb, TensorId a, TensorId b, const std::string& name, const std::string& block,
                  const Dims& d) {
    return gb.op(name, OpKind::Add, "([b,s,h],[b,s,h])->([b,s,h])", {a, b}, {d.b, d.s, d.h}, block,
                 hints("b", "", "s"));
}

void markAttentionCore(GraphBuilder& gb, TensorId t) { gb.producerOf(t).attentionCore = true; }

/// Marks the producer of `t` an attention-core contraction under the decoder's causal mask.
void markCausal(GraphBuilder& gb, TensorId t) { gb.producerOf(t).causal = true; }

/// Dropout of a [b,s,h] sub-block output (attention or MLP) when the model has dropout; else `x`.
TensorId hiddenDropout(GraphBuilder& gb, TensorId x, const std::string& name, const std::string& block,
                       const Dims& d) {
    if (!d.dropout)
        return x;
    return gb.op(name, OpKind::Dropout, "([b,s,h])->([b,s,h])", {x}, {d.b, d.s, d.h}, block, hints("b", "", "s"));
}

/// Grouped-query attention with fused QKV laid out per KV group: [h, g, r + 2, d]. With g = heads
/// and r = 1 it is ordinary multi-head attention. Heads split = the group factor g split.
TensorId attention(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const std::string blk = p;
    const I j = d.r + 2;
    const TensorId wqkv = gb.param(p + ".qkv.weight", {d.h, d.g, j, d.d});
    const TensorId qkv = gb.op(p + ".qkv", OpKind::MatMul, "([b,s,h],[h,g,j,d])->([b,s,g,j,d])", {x, wqkv},
                               {d.b, d.s, d.g, j, d.d}, blk, hints("b", "g"));
    const TensorId q = gb.op(p + ".q", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,r,d]) {j:fixed,r:fixed}", {qkv},
                             {d.b, d.s, d.g, d.r, d.d}, blk, hints("b", "g"));
    const TensorId k = gb.op(p + ".k", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,d]) {j:fixed}", {qkv},
                             {d.b, d.s, d.g, d.d}, blk, hints("b", "g"));
    const TensorId v = gb.op(p + ".v", OpKind::Slice, "([b,s,g,j,d])->([b,s,g,d]) {j:fixed}", {qkv},
                             {d.b, d.s, d.g, d.d}, blk, hints("b", "g"));
    const TensorId scores = gb.op(p + ".scores", OpKind::MatMul, "([b,s,g,r,d],[b,t,g,d])->([b,g,r,s,t])", {q, k},
                                  {d.b, d.g, d.r, d.s, d.s}, blk, hints("b", "g"));
    TensorId probs = gb.op(p + ".softmax", OpKind::Softmax, "([b,g,r,s,t])->([b,g,r,s,t]) {t:local}", {scores},
                           {d.b, d.g, d.r, d.s, d.s}, blk, hints("b", "g"));
    markAttentionCore(gb, probs);
    if (d.dropout) {
        probs = gb.op(p + ".dropout_probs", OpKind::Dropout, "([b,g,r,s,t])->([b,g,r,s,t])", {probs},
                      {d.b, d.g, d.r, d.s, d.s}, blk, hints("b", "g"));
        markAttentionCore(gb, probs);
    }
    const TensorId ctx = gb.op(p + ".context", OpKind::MatMul, "([b,g,r,s,t],[b,t,g,d])->([b,s,g,r,d])", {probs, v},
                               {d.b, d.s, d.g, d.r, d.d}, blk, hints("b", "g"));
    markAttentionCore(gb, scores);
    markAttentionCore(gb, ctx);
    markCausal(gb, scores);
    markCausal(gb, ctx);
    const TensorId wo = gb.param(p + ".proj.weight", {d.g, d.r, d.d, d.h});
    return gb.op(p + ".proj", OpKind::MatMul, "([b,s,g,r,d],[g,r,d,h])->([b,s,h])", {ctx, wo}, {d.b, d.s, d.h}, blk,
                 hints("b", "g"));
}

TensorId geluMlp(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const TensorId w1 = gb.param(p + ".fc1.weight", {d.h, d.f});
    const TensorId h1 = gb.op(p + ".fc1", OpKind::MatMul, "([b,s,h],[h,f])->([b,s,f])", {x, w1}, {d.b, d.s, d.f}, p,
                              hints("b", "f"));
    const TensorId a = gb.op(p + ".gelu", OpKind::Gelu, "([b,s,f])->([b,s,f])", {h1}, {d.b, d.s, d.f}, p,
                             hints("b", "f"));
    const TensorId w2 = gb.param(p + ".fc2.weight", {d.f, d.h});
    return gb.op(p + ".fc2", OpKind::MatMul, "([b,s,f],[f,h])->([b,s,h])", {a, w2}, {d.b, d.s, d.h}, p,
                 hints("b", "f"));
}

TensorId swigluMlp(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const TensorId w13 = gb.param(p + ".gate_up.weight", {d.h, 2, d.f});
    const TensorId h1 = gb.op(p + ".gate_up", OpKind::MatMul, "([b,s,h],[h,k,f])->([b,s,k,f]) {k:fixed}", {x, w13},
                              {d.b, d.s, 2, d.f}, p, hints("b", "f"));
    const TensorId a = gb.op(p + ".swiglu", OpKind::SwiGlu, "([b,s,k,f])->([b,s,f]) {k:fixed}", {h1},
                             {d.b, d.s, d.f}, p, hints("b", "f"));
    const TensorId w2 = gb.param(p + ".down.weight", {d.f, d.h});
    return gb.op(p + ".down", OpKind::MatMul, "([b,s,f],[f,h])->([b,s,h])", {a, w2}, {d.b, d.s, d.h}, p,
                 hints("b", "f"));
}

/// Mixtral-style experts: tokens [T,h] are routed top-k into capacity slots [e, C, h] with
/// C = T k / e (capacity factor 1). The token dimension is written (c, q) with q = e / k, so a split
/// of the tokens is a split of the capacity slots: with tokens over `data` and experts over `data`,
/// dispatch and combine become all-to-alls by resharding.
TensorId moeFfn(GraphBuilder& gb, TensorId x, const std::string& p, const Dims& d) {
    const I tokens = d.b * d.s;
    const I capacity = tokens * d.k / d.e;
    const TensorId t = gb.op(p + ".tokens", OpKind::Reshape, "([b,s,h])->([(b,s),h])", {x}, {tokens, d.h}, p,
                             hints("b", "", "s"));
    const TensorId wr = gb.param(p + ".router.weight", {d.h, d.e});
    const TensorId logits =
        gb.op(p + ".router", OpKind::MatMul, "([t,h],[h,e])->([t,e])", {t, wr}, {tokens, d.e}, p, hints("t", ""));
    const TensorId gate = gb.op(p + ".gate", OpKind::Softmax, "([t,e])->([t,e]) {e:local}", {logits}, {tokens, d.e},
                                p, hints("t", ""));
    const TensorId routed = gb.op(p + ".dispatch", OpKind::Dispatch, "([(c,q),h],[(c,q),e])->([e,c,h]) {q:fixed}",
                                  {t, gate}, {d.e, capacity, d.h}, p, hints("c", "", "", "e"));
    const TensorId w13 = gb.param(p + ".experts.gate_up.weight", {d.e, d.h, 2, d.f});
    const TensorId h1 = gb.op(p + ".experts.gate_up", OpKind::MatMul, "([e,c,h],[e,h,k,f])->([e,c,k,f]) {k:fixed}",
                              {routed, w13}, {d.e, capacity, 2, d.f}, p, hints("c", "f", "", "e"));
    const TensorId a = gb.op(p + ".experts.swiglu", OpKind::SwiGlu, "([e,c,k,f])->([e,c,f]) {k:fixed}", {h1},
                             {d.e, capacity, d.f}, p, hints("c", "f", "", "e"));
    const TensorId w2 = gb.param(p + ".experts.down.weight", {d.e, d.f, d.h});
    const TensorId out = gb.op(p + ".experts.down", OpKind::MatMul, "([e,c,f],[e,f,h])->([e,c,h])", {a, w2},
                               {d.e, capacity, d.h}, p, hints("c", "f", "", "e"));
    const TensorId combined = gb.op(p + ".combine", OpKind::Combine, "([e,c,h],[(c,q),e])->([(c,q),h]) {q:fixed}",
                                    {out, gate}, {tokens, d.h}, p, hints("c", ""));
    return gb.op(p + ".untokens", OpKind::Reshape, "([(b,s),h])->([b,s,h])", {combined}, {d.b, d.s, d.h}, p,
                 hints("b", "", "s"));
}

Graph buildTransformer(const ModelParams& params, int microBatch, const std::string& name, Family family) {
    const Dims d = checkedDims(params, microBatch, family);
    const bool rms = family != Family::Gpt;
    GraphBuilder gb(name, params.dtype);
    const TensorId ids = gb.input("tokens", {d.b, d.s}, DType::INT32);
    const TensorId labels = gb.input("labels", {d.b, d.s}, DType::INT32);
    const TensorId wte = gb.param("embed.weight", {d.v, d.h});
    TensorId x = gb.op("embed", OpKind::Embedding, "([b,s],[v,h])->([b,s,h]) {v:gather}", {ids, wte},
                       {d.b, d.s, d.h}, "embed", hints("b", "v", "s"));
    if (family == Family::Gpt) {
        const TensorId wpe = gb.param("embed.position.weight", {d.s, d.h});
        x = gb.op("embed.position", OpKind::Add, "([b,s,h],[s,h])->([b,s,h])", {x, wpe}, {d.b, d.s, d.h}, "embed",
                  hints("b", "", "s"));
    }
    for (int i = 0; i < params.layers; ++i) {
        const std::string l = "layers." + std::to_string(i);
        const TensorId n1 = norm(gb, x, l + ".norm1", l, d, rms);
        const TensorId attn = attention(gb, n1, l + ".attn", d);
        const TensorId x1 = residual(gb, x, hiddenDropout(gb, attn, l + ".attn.dropout", l + ".attn", d), l + ".add1", l, d);
        const TensorId n2 = norm(gb, x1, l + ".norm2", l, d, rms);
        const TensorId ffn = family == Family::Gpt   ? geluMlp(gb, n2, l + ".mlp", d)
                             : family == Family::Llama ? swigluMlp(gb, n2, l + ".mlp", d)
                                                       : moeFfn(gb, n2, l + ".moe", d);
        const std::string ffnBlock = family == Family::Moe ? l + ".moe" : l + ".mlp";
        x = residual(gb, x1, hiddenDropout(gb, ffn, ffnBlock + ".dropout", ffnBlock, d), l + ".add2", l, d);
    }
    const TensorId nf = norm(gb, x, "final_norm", "head", d, rms);
    const TensorId wHead = params.tieEmbeddings ? wte : gb.param("lm_head.weight", {d.v, d.h});
    const TensorId logits = gb.op("lm_head", OpKind::MatMul, "([b,s,h],[v,h])->([b,s,v])", {nf, wHead},
                                  {d.b, d.s, d.v}, "head", hints("b", "v"));
    gb.op("loss", OpKind::CrossEntropy, "([b,s,v],[b,s])->([b,s]) {v:local}", {logits, labels}, {d.b, d.s}, "head",
          hints("b", "v"));
    return gb.finish();
}

} // namespace

Graph buildGpt(const ModelParams& p, int microBatch, const std::string& name) {
    return buildTransformer(p, microBatch, name, Family::Gpt);
}

Graph buildLlama(const ModelParams& p, int microBatch, const std::string& name) {
    return buildTransformer(p, microBatch, name, Family::Llama);
}

Graph buildMoe(const ModelParams& p, int microBatch, const std::string& name) {
    return buildTransformer(p, microBatch, name, Family::Moe);
}

} // namespace shardscope
