#pragma once
// The built-in model builders (mlp, gpt, llama, moe, resnet) and the named presets.

#include "engine/builders/model_params.h"
#include "engine/ir/graph.h"

#include <string>
#include <vector>

namespace shardscope {

/// A named preset: its family and default parameters.
struct ModelPreset {
    std::string name;
    std::string family; ///< mlp, gpt, llama, moe, resnet, inception
    ModelParams params;
    std::string description;
};

/// Every model preset, including one per family with small defaults ("mlp", "gpt", ...).
const std::vector<ModelPreset>& modelPresets();
/// The preset called `name`. Throws InputError for an unknown name, listing the known ones.
const ModelPreset& modelPreset(const std::string& name);
/// Builds the graph of one micro-batch of family `family` (batch / microbatches sequences).
/// Throws InputError for an unknown family or inconsistent parameters (heads not dividing hidden...).
Graph buildModel(const std::string& family, const ModelParams& params, int microbatches, const std::string& name);

/// A stack of linear + ReLU layers ending in a squared-error loss; `microBatch` rows.
Graph buildMlp(const ModelParams& p, int microBatch, const std::string& name);
/// GPT (learned positions, layer-norm, multi-head attention, GeLU MLP, optional tied LM head).
Graph buildGpt(const ModelParams& p, int microBatch, const std::string& name);
/// Llama (RMSNorm, grouped-query attention, SwiGLU, untied LM head).
Graph buildLlama(const ModelParams& p, int microBatch, const std::string& name);
/// Mixtral-style mixture of experts: Llama attention, router, top-k dispatch, experts, combine.
Graph buildMoe(const ModelParams& p, int microBatch, const std::string& name);
/// ResNet-50 style bottleneck network for `p.image` square inputs and `p.classes` classes.
Graph buildResnet(const ModelParams& p, int microBatch, const std::string& name);

/// An Inception-v3-like network of branchy modules joined by channel concatenation (256x256 inputs).
Graph buildInception(const ModelParams& p, int microBatch, const std::string& name);

} // namespace shardscope
