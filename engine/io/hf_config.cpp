#include "engine/io/hf_config.h"

#include "engine/io/json_fields.h"

#include <algorithm>
#include <filesystem>

namespace shardscope {

namespace {

int positive(const JsonFields& in, const nlohmann::json& c, const char* key) {
    const long long v = in.integer(c, "", key);
    if (v < 1 || v > 100000000)
        in.fail(key, "must be a positive integer");
    return static_cast<int>(v);
}

int optionalPositive(const JsonFields& in, const nlohmann::json& c, const char* key, int fallback) {
    if (!c.contains(key) || c.at(key).is_null())
        return fallback;
    return positive(in, c, key);
}

void readDtype(const JsonFields& in, const nlohmann::json& c, ModelParams& p) {
    if (!c.contains("torch_dtype") || c.at("torch_dtype").is_null())
        return;
    const std::string t = in.string(c, "", "torch_dtype");
    if (t == "bfloat16")
        p.dtype = DType::BF16;
    else if (t == "float16")
        p.dtype = DType::FP16;
    else if (t == "float32")
        p.dtype = DType::FP32;
    else
        in.fail("torch_dtype", "unsupported dtype '" + t + "' (bfloat16, float16, float32)");
}

} // namespace

HfModel parseHfConfig(const nlohmann::json& c, const std::string& source) {
    const JsonFields in(source);
    HfModel m;
    const std::string type = in.string(c, "", "model_type");
    m.name = c.contains("_name_or_path") && c.at("_name_or_path").is_string()
                 ? c.at("_name_or_path").get<std::string>()
                 : std::filesystem::path(source).parent_path().filename().string();
    if (m.name.empty())
        m.name = type;
    ModelParams& p = m.params;
    if (type == "gpt2") {
        m.family = "gpt";
        p.layers = positive(in, c, "n_layer");
        p.hidden = positive(in, c, "n_embd");
        p.heads = positive(in, c, "n_head");
        p.seq = optionalPositive(in, c, "n_positions", 1024);
        p.vocab = positive(in, c, "vocab_size");
        p.ffn = optionalPositive(in, c, "n_inner", 4 * p.hidden);
        p.tieEmbeddings = true;
        p.batch = 8;
    } else if (type == "llama" || type == "mixtral" || type == "mistral") {
        m.family = type == "mixtral" ? "moe" : "llama";
        p.layers = positive(in, c, "num_hidden_layers");
        p.hidden = positive(in, c, "hidden_size");
        p.heads = positive(in, c, "num_attention_heads");
        p.kvHeads = optionalPositive(in, c, "num_key_value_heads", p.heads);
        p.ffn = positive(in, c, "intermediate_size");
        p.vocab = positive(in, c, "vocab_size");
        p.seq = std::min(optionalPositive(in, c, "max_position_embeddings", 4096), 4096);
        p.tieEmbeddings = c.contains("tie_word_embeddings") && c.at("tie_word_embeddings").is_boolean() &&
                          c.at("tie_word_embeddings").get<bool>();
        if (type == "mixtral") {
            p.experts = positive(in, c, "num_local_experts");
            p.topK = positive(in, c, "num_experts_per_tok");
        }
        p.batch = 8;
    } else {
        in.fail("model_type", "unsupported model_type '" + type + "' (gpt2, llama, mistral, mixtral)");
    }
    readDtype(in, c, p);
    return m;
}

} // namespace shardscope
