#pragma once
// Hugging Face config.json of the GPT-2, Llama and Mixtral families, read into builder parameters.

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

} // namespace shardscope
