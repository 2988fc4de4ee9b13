// GPT, Llama and MoE graphs assembled from the transformer parts; the architecture switches
// (engine/builders/transformer_arch.h) give the Hugging Face families' variants.

#include "engine/builders/builders.h"
#include "engine/builders/graph_builder.h"
#include "engine/builders/transformer_parts.h"

namespace shardscope {

namespace {

using namespace transformer;

enum class Family { Gpt, Llama, Moe };

Graph buildTransformer(const ModelParams& params, int microBatch, const std::string& name, Family family) {
    ModelParams p = params;
    if (family == Family::Gpt) { // GPT-2's layout whatever the switches say
        p.arch.layerNorm = true;
        p.arch.gatedMlp = false;
    }
    const Dims d = checkedDims(p, microBatch, family == Family::Moe);
    const TransformerArch& a = d.arch;
    GraphBuilder gb(name, p.dtype);
    const TensorId ids = gb.input("tokens", {d.b, d.s}, DType::INT32);
    const TensorId labels = gb.input("labels", {d.b, d.s}, DType::INT32);
    const TensorId wte = gb.param("embed.weight", {d.v, d.h});
    TensorId x = gb.op("embed", OpKind::Embedding, "([b,s],[v,h])->([b,s,h]) {v:gather}", {ids, wte}, {d.b, d.s, d.h},
                       "embed", hints("b", "v", "s"));
    if (family == Family::Gpt) {
        const TensorId wpe = gb.param("embed.position.weight", {d.s, d.h});
        x = gb.op("embed.position", OpKind::Add, "([b,s,h],[s,h])->([b,s,h])", {x, wpe}, {d.b, d.s, d.h}, "embed",
                  hints("b", "", "s"));
    }
    for (int i = 0; i < p.layers; ++i) {
        const std::string l = "layers." + std::to_string(i);
        const TensorId n1 = norm(gb, x, l + ".norm1", l, d, a.layerNorm);
        const I window = a.windowOf(i, p.seq);
        TensorId attn = a.latentAttention() ? latentAttention(gb, n1, l + ".attn", d, window)
                                            : attention(gb, n1, l + ".attn", d, window);
        if (a.postNorms)
            attn = norm(gb, attn, l + ".attn.post_norm", l + ".attn", d, a.layerNorm);
        const TensorId x1 = residual(gb, x, hiddenDropout(gb, attn, l + ".attn.dropout", l + ".attn", d), l + ".add1", l, d);
        // GPT-NeoX's parallel residual: both sub-blocks read the layer's input.
        const TensorId n2 = norm(gb, a.parallelResidual ? x : x1, l + ".norm2", l, d, a.layerNorm);
        const bool experts = family == Family::Moe && i >= a.denseLayers;
        const std::string ffnBlock = experts ? l + ".moe" : l + ".mlp";
        const I denseFfn = family == Family::Moe ? (a.denseFfn > 0 ? a.denseFfn : 4 * d.h) : d.f;
        TensorId ffn = experts ? moeFfn(gb, n2, ffnBlock, d) : mlp(gb, n2, ffnBlock, d, denseFfn, a.gatedMlp);
        if (a.postNorms)
            ffn = norm(gb, ffn, ffnBlock + ".post_norm", ffnBlock, d, a.layerNorm);
        x = residual(gb, x1, hiddenDropout(gb, ffn, ffnBlock + ".dropout", ffnBlock, d), l + ".add2", l, d);
    }
    const TensorId nf = norm(gb, x, "final_norm", "head", d, a.layerNorm);
    const TensorId wHead = p.tieEmbeddings ? wte : gb.param("lm_head.weight", {d.v, d.h});
    const TensorId logits = gb.op("lm_head", OpKind::MatMul, "([b,s,h],[v,h])->([b,s,v])", {nf, wHead}, {d.b, d.s, d.v},
                                  "head", hints("b", "v"));
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
