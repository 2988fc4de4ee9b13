// Named model presets and the family dispatch.

#include "engine/builders/builders.h"
#include "engine/util/error.h"

namespace shardscope {

namespace {

ModelParams transformer(int layers, int hidden, int heads, int kvHeads, int ffn, int seq, int vocab, int batch,
                        bool tied) {
    ModelParams p;
    p.layers = layers;
    p.hidden = hidden;
    p.heads = heads;
    p.kvHeads = kvHeads;
    p.ffn = ffn;
    p.seq = seq;
    p.vocab = vocab;
    p.batch = batch;
    p.tieEmbeddings = tied;
    return p;
}

std::vector<ModelPreset> makePresets() {
    // Vocabularies of GPT models are padded to a multiple of 128 (50257 -> 50304), as Megatron-LM does,
    // so that the vocabulary can be split over tensor-parallel ranks.
    std::vector<ModelPreset> v;
    v.push_back({"gpt2-small", "gpt", transformer(12, 768, 12, 0, 0, 1024, 50304, 512, true),
                 "GPT-2 124M: 12 layers, hidden 768, 12 heads, tied embeddings; batch 512 x 1024 (Radford et al. 2019)"});
    v.push_back({"gpt3-1.3b", "gpt", transformer(24, 2048, 16, 0, 0, 2048, 50304, 512, true),
                 "GPT-3 XL 1.3B: 24 layers, hidden 2048, 16 heads; batch 1M tokens = 512 x 2048 (Brown et al. 2020, "
                 "Table 2.1)"});
    v.push_back({"gpt3-175b", "gpt", transformer(96, 12288, 96, 0, 0, 2048, 50304, 1536, true),
                 "GPT-3 175B: 96 layers, hidden 12288, 96 heads; batch 1536 x 2048 (Narayanan et al. 2021, Table 1)"});
    v.push_back({"llama2-7b", "llama", transformer(32, 4096, 32, 32, 11008, 4096, 32000, 1024, false),
                 "Llama 2 7B: 32 layers, hidden 4096, 32 heads, SwiGLU 11008; batch 4M tokens = 1024 x 4096 (Touvron "
                 "et al. 2023)"});
    v.push_back({"llama2-70b", "llama", transformer(80, 8192, 64, 8, 28672, 4096, 32000, 1024, false),
                 "Llama 2 70B: 80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU 28672; batch 4M tokens = 1024 x "
                 "4096 (Touvron et al. 2023)"});
    ModelParams mixtral = transformer(32, 4096, 32, 8, 14336, 4096, 32000, 1024, false);
    mixtral.experts = 8;
    mixtral.topK = 2;
    v.push_back({"mixtral-8x7b", "moe", mixtral, "Mixtral 8x7B: 32 layers, 8 experts, top-2, 8 KV heads; batch 1024 x 4096 (unpublished: Llama 2's 4M "
                 "tokens)"});
    ModelParams resnet;
    resnet.batch = 256;
    resnet.dtype = DType::BF16;
    v.push_back({"resnet50", "resnet", resnet, "ResNet-50 v1.5, 224x224 images, 1000 classes; batch 256 (He et al. 2016)"});
    // One small default per family, for experiments with --set.
    ModelParams mlp;
    mlp.layers = 2;
    mlp.hidden = 1024;
    mlp.ffn = 4096;
    mlp.batch = 64;
    v.push_back({"mlp", "mlp", mlp, "a stack of linear + ReLU layers (default 2 x 1024 -> 4096 -> 1024)"});
    v.push_back({"gpt", "gpt", transformer(2, 1024, 16, 0, 0, 1024, 50304, 8, false),
                 "a small GPT for experiments (2 layers, hidden 1024)"});
    v.push_back({"llama", "llama", transformer(2, 1024, 16, 4, 2816, 1024, 32000, 8, false),
                 "a small Llama for experiments (2 layers, hidden 1024, 4 KV heads)"});
    ModelParams moe = transformer(2, 1024, 16, 4, 2816, 1024, 32000, 8, false);
    v.push_back({"moe", "moe", moe, "a small mixture of experts (2 layers, 8 experts, top-2)"});
    ModelParams inception;
    inception.batch = 64;
    inception.image = 256;
    v.push_back({"inception-v3", "inception", inception,
                 "Inception-v3-like: 11 modules of parallel branches joined by concatenation, 256x256 images"});
    ModelParams rn;
    rn.batch = 32;
    v.push_back({"resnet", "resnet", rn, "ResNet-50 layout with batch 32"});
    return v;
}

} // namespace

const std::vector<ModelPreset>& modelPresets() {
    static const std::vector<ModelPreset> presets = makePresets();
    return presets;
}

const ModelPreset& modelPreset(const std::string& name) {
    for (const ModelPreset& p : modelPresets())
        if (p.name == name)
            return p;
    std::string known;
    for (const ModelPreset& p : modelPresets())
        known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown model preset '" + name + "' (known: " + known + ")");
}

Graph buildModel(const std::string& family, const ModelParams& params, int microbatches, const std::string& name) {
    if (microbatches < 1)
        throw InputError("--microbatches: must be at least 1");
    if (params.batch % microbatches != 0)
        throw InputError("--batch " + std::to_string(params.batch) + " is not divisible by --microbatches " +
                         std::to_string(microbatches));
    const int micro = params.batch / microbatches;
    if (family == "mlp")
        return buildMlp(params, micro, name);
    if (family == "gpt")
        return buildGpt(params, micro, name);
    if (family == "llama")
        return buildLlama(params, micro, name);
    if (family == "moe")
        return buildMoe(params, micro, name);
    if (family == "resnet")
        return buildResnet(params, micro, name);
    if (family == "inception")
        return buildInception(params, micro, name);
    throw InputError("unknown model family '" + family + "' (mlp, gpt, llama, moe, resnet, inception)");
}

} // namespace shardscope
