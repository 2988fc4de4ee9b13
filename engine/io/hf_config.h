#pragma once
// Hugging Face config.json read into builder parameters: GPT-2; Llama, Mistral, Mixtral; Qwen2 /
// Qwen2.5, Qwen3, Qwen2-MoE, Qwen3-MoE; DeepSeek-V2 / V3; Gemma, Gemma 2, Gemma 3; Phi-3; GPT-NeoX;
// StarCoder2. Each model_type maps to the gpt, llama or moe builder with the architecture switches
// that make its parameters and ops those of the checkpoint (transformer_arch.h).

#include "engine/builders/model_params.h"

#include <nlohmann/json.hpp>
#include <string>

namespace shardscope {

/// A builder family, its parameters and a display name taken from the config.
struct HfModel {
    std::string family; ///< gpt, llama or moe
    ModelParams params;
    std::string name;
};

/// Reads `config` (already parsed from `source`). Throws InputError naming the missing or bad field,
/// or the unsupported model_type.
HfModel parseHfConfig(const nlohmann::json& config, const std::string& source);

/// The model_type values parseHfConfig reads, for messages.
std::string supportedHfModelTypes();

} // namespace shardscope
