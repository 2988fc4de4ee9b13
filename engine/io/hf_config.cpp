#include "engine/io/hf_config.h"

#include "engine/io/json_fields.h"
#include "engine/util/limits.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

namespace shardscope {

namespace {

/// Reads one config object (the top level, or a multimodal config's text_config at `path`).
class ConfigReader {
public:
    ConfigReader(const JsonFields& in, const nlohmann::json& c, std::string path) : in_(in), c_(c), path_(std::move(path)) {}

    bool has(const char* key) const { return c_.contains(key) && !c_.at(key).is_null(); }

    int positive(const char* key) const {
        const long long v = in_.integer(c_, path_, key);
        if (v < 1 || v > 100000000)
            fail(key, "must be a positive integer");
        return static_cast<int>(v);
    }
    int positiveOr(const char* key, int fallback) const { return has(key) ? positive(key) : fallback; }
    int countOr(const char* key, int fallback) const {
        if (!has(key))
            return fallback;
        const long long v = in_.integer(c_, path_, key);
        if (v < 0 || v > 100000000)
            fail(key, "must be a non-negative integer");
        return static_cast<int>(v);
    }
    bool flagOr(const char* key, bool fallback) const { return has(key) ? in_.boolean(c_, path_, key) : fallback; }
    std::string stringOr(const char* key, const std::string& fallback) const {
        return has(key) ? in_.string(c_, path_, key) : fallback;
    }
    [[noreturn]] void fail(const char* key, const std::string& what) const {
        in_.fail(path_.empty() ? std::string(key) : path_ + "." + key, what);
    }
    const nlohmann::json& json() const { return c_; }

private:
    const JsonFields& in_;
    const nlohmann::json& c_;
    std::string path_;
};

/// The fields every Llama-like decoder has; `tiedByDefault` is the family's tie_word_embeddings default.
void readDecoder(const ConfigReader& r, ModelParams& p, bool tiedByDefault) {
    p.layers = r.positive("num_hidden_layers");
    if (p.layers > kMaxLayers)
        r.fail("num_hidden_layers", "more than the limit of " + withSeparators(kMaxLayers) + " layers");
    p.hidden = r.positive("hidden_size");
    p.heads = r.positive("num_attention_heads");
    p.kvHeads = r.positiveOr("num_key_value_heads", p.heads);
    p.ffn = r.positive("intermediate_size");
    p.vocab = r.positive("vocab_size");
    p.seq = std::min(r.positiveOr("max_position_embeddings", 4096), 4096);
    p.tieEmbeddings = r.flagOr("tie_word_embeddings", tiedByDefault);
    p.arch.headDim = r.countOr("head_dim", 0);
    p.batch = 8;
}

/// The sliding window and which layers attend fully: `layer_types` ("sliding_attention" /
/// "full_attention" per layer) when the config lists them, else every `patternKey`-th layer (the
/// family's `defaultFullEvery` when the key is absent; 0 = every layer slides). Only periodic layouts
/// (every n-th layer full) are supported. A null or absent `sliding_window` leaves every layer full.
void readSlidingWindow(const ConfigReader& r, ModelParams& p, const char* patternKey, int defaultFullEvery) {
    if (!r.has("sliding_window"))
        return;
    p.arch.slidingWindow = r.positive("sliding_window");
    p.arch.fullEvery = patternKey != nullptr ? r.countOr(patternKey, defaultFullEvery) : defaultFullEvery;
    if (!r.has("layer_types"))
        return;
    const nlohmann::json& types = r.json().at("layer_types");
    if (!types.is_array() || int(types.size()) != p.layers)
        r.fail("layer_types", "must list one type per layer (" + std::to_string(p.layers) + ")");
    std::vector<bool> full;
    for (const nlohmann::json& t : types) {
        if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
            r.fail("layer_types", "each entry must be \"sliding_attention\" or \"full_attention\"");
        full.push_back(t == "full_attention");
    }
    const auto first = std::find(full.begin(), full.end(), true);
    p.arch.fullEvery = first == full.end() ? 0 : int(first - full.begin()) + 1;
    for (int i = 0; i < p.layers; ++i)
        if (full[std::size_t(i)] != (p.arch.fullEvery > 0 && (i + 1) % p.arch.fullEvery == 0))
            r.fail("layer_types", "only a periodic layout is supported (every n-th layer full, the others sliding)");
    if (std::all_of(full.begin(), full.end(), [](bool f) { return f; }))
        p.arch.slidingWindow = 0;
}

/// GPT OSS: grouped-query attention with biases, attention sinks and sliding-window layers between
/// full ones; routed experts (every layer) whose router and linear layers have biases.
std::string readGptOss(const ConfigReader& r, ModelParams& p) {
    readDecoder(r, p, false);
    p.experts = r.positive("num_local_experts");
    p.topK = r.positive(r.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token");
    if (p.topK > p.experts)
        r.fail("num_experts_per_tok", "exceeds the " + std::to_string(p.experts) + " experts");
    p.arch.linearBias = r.flagOr("attention_bias", true);
    p.arch.attentionSinks = true;
    p.arch.expertBias = true;
    readSlidingWindow(r, p, nullptr, 2);
    return "moe";
}

/// Qwen's MoE configs put experts on every layer unless told otherwise; other layouts are refused.
void requireEveryLayerSparse(const ConfigReader& r) {
    if (r.positiveOr("decoder_sparse_step", 1) != 1)
        r.fail("decoder_sparse_step", "only 1 (experts on every layer) is supported");
    if (r.has("mlp_only_layers") && !(r.json().at("mlp_only_layers").is_array() && r.json().at("mlp_only_layers").empty()))
        r.fail("mlp_only_layers", "dense layers among the sparse ones are not supported (only an empty list)");
}

void readExperts(const ConfigReader& r, ModelParams& p, const char* count) {
    p.experts = r.positive(count);
    p.topK = r.positive("num_experts_per_tok");
    p.ffn = r.positive("moe_intermediate_size");
    if (p.topK > p.experts)
        r.fail("num_experts_per_tok", "exceeds the " + std::to_string(p.experts) + " experts");
}

/// DeepSeek-V2 / V3: multi-head latent attention, routed and shared experts, leading dense layers.
std::string readDeepseek(const ConfigReader& r, ModelParams& p) {
    readDecoder(r, p, false);
    readExperts(r, p, "n_routed_experts");
    if (r.positiveOr("moe_layer_freq", 1) != 1)
        r.fail("moe_layer_freq", "only 1 (experts on every layer after the dense ones) is supported");
    p.arch.sharedExperts = r.countOr("n_shared_experts", 0);
    p.arch.denseLayers = r.countOr("first_k_dense_replace", 0);
    p.arch.denseFfn = r.positive("intermediate_size");
    p.arch.qLoraRank = r.countOr("q_lora_rank", 0);
    p.arch.kvLoraRank = r.positive("kv_lora_rank");
    p.arch.ropeDim = r.positive("qk_rope_head_dim");
    p.arch.headDim = r.positive("qk_nope_head_dim");
    p.arch.vHeadDim = r.positive("v_head_dim");
    p.kvHeads = p.heads; // every head expands its own keys and values from the shared latent
    return "moe";
}

/// Gemma: GeGLU, head_dim apart from hidden / heads, tied embeddings; Gemma 2 adds norms after
/// attention and MLP, Gemma 3 query and key norms too.
std::string readGemma(const ConfigReader& r, ModelParams& p, bool postNorms, bool qkNorm) {
    readDecoder(r, p, true);
    p.arch.postNorms = postNorms;
    p.arch.qkNorm = qkNorm;
    // Gemma 2 alternates sliding and full layers; Gemma 3 attends fully every sliding_window_pattern-th.
    if (postNorms)
        readSlidingWindow(r, p, qkNorm ? "sliding_window_pattern" : nullptr, qkNorm ? 6 : 2);
    return "llama";
}

using Reader = std::function<std::string(const ConfigReader&, ModelParams&)>; // returns the family

const std::map<std::string, Reader>& readers() {
    static const std::map<std::string, Reader> table{
        {"gpt2",
         [](const ConfigReader& r, ModelParams& p) {
             p.layers = r.positive("n_layer");
             if (p.layers > kMaxLayers)
                 r.fail("n_layer", "more than the limit of " + withSeparators(kMaxLayers) + " layers");
             p.hidden = r.positive("n_embd");
             p.heads = r.positive("n_head");
             p.seq = r.positiveOr("n_positions", 1024);
             p.vocab = r.positive("vocab_size");
             p.ffn = r.positiveOr("n_inner", 4 * p.hidden);
             p.tieEmbeddings = true;
             p.batch = 8;
             return std::string("gpt");
         }},
        {"llama", [](const ConfigReader& r, ModelParams& p) { readDecoder(r, p, false); return std::string("llama"); }},
        {"mistral",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             readSlidingWindow(r, p, nullptr, 0);
             return std::string("llama");
         }},
        {"mixtral",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             readSlidingWindow(r, p, nullptr, 0);
             p.experts = r.positive("num_local_experts");
             p.topK = r.positive("num_experts_per_tok");
             return std::string("moe");
         }},
        {"qwen2",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             p.arch.qkvBias = true; // Qwen2's query, key and value projections always have biases
             return std::string("llama");
         }},
        {"qwen3",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             p.arch.qkNorm = true;
             p.arch.qkvBias = r.flagOr("attention_bias", false);
             return std::string("llama");
         }},
        {"qwen2_moe",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             requireEveryLayerSparse(r);
             readExperts(r, p, "num_experts");
             p.arch.qkvBias = true;
             if (const int shared = r.countOr("shared_expert_intermediate_size", 0); shared > 0) {
                 p.arch.sharedExperts = 1;
                 p.arch.sharedFfn = shared;
                 p.arch.sharedGate = true;
             }
             return std::string("moe");
         }},
        {"qwen3_moe",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             requireEveryLayerSparse(r);
             readExperts(r, p, "num_experts");
             p.arch.qkNorm = true;
             p.arch.qkvBias = r.flagOr("attention_bias", false);
             return std::string("moe");
         }},
        {"deepseek_v2", [](const ConfigReader& r, ModelParams& p) { return readDeepseek(r, p); }},
        {"deepseek_v3", [](const ConfigReader& r, ModelParams& p) { return readDeepseek(r, p); }},
        {"gpt_oss", [](const ConfigReader& r, ModelParams& p) { return readGptOss(r, p); }},
        {"gemma", [](const ConfigReader& r, ModelParams& p) { return readGemma(r, p, false, false); }},
        {"gemma2", [](const ConfigReader& r, ModelParams& p) { return readGemma(r, p, true, false); }},
        {"gemma3_text", [](const ConfigReader& r, ModelParams& p) { return readGemma(r, p, true, true); }},
        {"phi3",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             readSlidingWindow(r, p, nullptr, 0);
             return std::string("llama");
         }},
        {"gpt_neox",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, false);
             p.arch.layerNorm = true;
             p.arch.gatedMlp = false;
             p.arch.linearBias = true;
             p.arch.parallelResidual = r.flagOr("use_parallel_residual", true);
             return std::string("llama");
         }},
        {"starcoder2",
         [](const ConfigReader& r, ModelParams& p) {
             readDecoder(r, p, true);
             p.arch.layerNorm = r.stringOr("norm_type", "layer_norm") == "layer_norm";
             p.arch.gatedMlp = false;
             p.arch.linearBias = r.flagOr("use_bias", true);
             readSlidingWindow(r, p, nullptr, 0);
             return std::string("llama");
         }},
    };
    return table;
}

/// The training precision from the checkpoint's: bfloat16 and float16 as stored; a float32 checkpoint
/// (Gemma 2, StarCoder2) still trains in bf16 mixed precision (--set dtype=fp32 for full precision).
void readDtype(const ConfigReader& r, ModelParams& p) {
    // "torch_dtype" until transformers 4.56, "dtype" after.
    const char* key = r.has("torch_dtype") ? "torch_dtype" : "dtype";
    if (!r.has(key))
        return;
    const std::string t = r.stringOr(key, "");
    if (t == "bfloat16")
        p.dtype = DType::BF16;
    else if (t == "float16")
        p.dtype = DType::FP16;
    else if (t == "float32")
        p.dtype = DType::BF16;
    else
        r.fail(key, "unsupported dtype '" + t.substr(0, 40) + "' (bfloat16, float16, float32)");
}

} // namespace

std::string supportedHfModelTypes() {
    std::string out;
    for (const auto& [type, reader] : readers())
        out += (out.empty() ? "" : ", ") + type;
    return out + ", gemma3 (its text_config)";
}

/// The reading itself; parseHfConfig turns stray JSON type errors into input errors.
static HfModel parseHfConfigUnguarded(const nlohmann::json& c, const std::string& source) {
    const JsonFields in(source);
    HfModel m;
    std::string type = in.string(c, "", "model_type");
    m.name = c.contains("_name_or_path") && c.at("_name_or_path").is_string()
                 ? c.at("_name_or_path").get<std::string>()
                 : std::filesystem::path(source).parent_path().filename().string();
    if (m.name.empty())
        m.name = type;
    // A multimodal Gemma 3 holds its language model in text_config (the vision tower is not modelled).
    const bool multimodal = type == "gemma3";
    const nlohmann::json& text = multimodal ? in.object(c, "", "text_config") : c;
    const ConfigReader r(in, text, multimodal ? "text_config" : "");
    if (multimodal)
        type = r.stringOr("model_type", "gemma3_text");
    const auto reader = readers().find(type);
    if (reader == readers().end())
        in.fail(multimodal ? "text_config.model_type" : "model_type",
                "unsupported model_type '" + type.substr(0, 40) + "' (" + supportedHfModelTypes() + ")");
    m.family = reader->second(r, m.params);
    readDtype(ConfigReader(in, c, ""), m.params);
    return m;
}

HfModel parseHfConfig(const nlohmann::json& c, const std::string& source) {
    return guardJson(source, [&] { return parseHfConfigUnguarded(c, source); });
}

} // namespace shardscope
