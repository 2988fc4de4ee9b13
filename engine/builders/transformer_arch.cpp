#include "engine/builders/transformer_arch.h"

#include "engine/util/error.h"

#include <cctype>
#include <type_traits>

namespace shardscope {

namespace {

int parseCount(const std::string& key, const std::string& value) {
    if (value.empty() || value.size() > 9)
        throw InputError("--set " + key + "=" + value.substr(0, 40) + ": expected a non-negative integer");
    for (char c : value)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            throw InputError("--set " + key + "=" + value.substr(0, 40) + ": expected a non-negative integer");
    return std::stoi(value);
}

bool parseSwitch(const std::string& key, const std::string& value) {
    if (value != "true" && value != "false")
        throw InputError("--set " + key + "=" + value.substr(0, 40) + ": expected true or false");
    return value == "true";
}

/// The switches, each with its key, for set() and items() alike.
template <typename Visit>
void visitSwitches(TransformerArch& a, Visit&& visit) {
    visit("head_dim", a.headDim);
    visit("qkv_bias", a.qkvBias);
    visit("linear_bias", a.linearBias);
    visit("qk_norm", a.qkNorm);
    visit("post_norms", a.postNorms);
    visit("layer_norm", a.layerNorm);
    visit("gated_mlp", a.gatedMlp);
    visit("parallel_residual", a.parallelResidual);
    visit("shared_experts", a.sharedExperts);
    visit("shared_ffn", a.sharedFfn);
    visit("shared_gate", a.sharedGate);
    visit("dense_layers", a.denseLayers);
    visit("dense_ffn", a.denseFfn);
    visit("q_lora_rank", a.qLoraRank);
    visit("kv_lora_rank", a.kvLoraRank);
    visit("rope_dim", a.ropeDim);
    visit("v_head_dim", a.vHeadDim);
    visit("sliding_window", a.slidingWindow);
    visit("full_every", a.fullEvery);
    visit("attention_sinks", a.attentionSinks);
    visit("expert_bias", a.expertBias);
}

} // namespace

int TransformerArch::windowOf(int layer, int seq) const {
    const bool full = fullEvery > 0 && (layer + 1) % fullEvery == 0;
    return slidingWindow > 0 && slidingWindow < seq && !full ? slidingWindow : 0;
}

bool TransformerArch::set(const std::string& key, const std::string& value) {
    bool found = false;
    visitSwitches(*this, [&](const char* name, auto& field) {
        if (key != name)
            return;
        found = true;
        if constexpr (std::is_same_v<std::decay_t<decltype(field)>, bool>)
            field = parseSwitch(key, value);
        else
            field = parseCount(key, value);
    });
    return found;
}

std::vector<std::pair<std::string, std::string>> TransformerArch::items() const {
    auto texts = [](TransformerArch a) {
        std::vector<std::pair<std::string, std::string>> t;
        visitSwitches(a, [&](const char* name, auto& field) {
            if constexpr (std::is_same_v<std::decay_t<decltype(field)>, bool>)
                t.emplace_back(name, field ? "true" : "false");
            else
                t.emplace_back(name, std::to_string(field));
        });
        return t;
    };
    const auto mine = texts(*this), llama = texts(TransformerArch{});
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t k = 0; k < mine.size(); ++k)
        if (mine[k].second != llama[k].second)
            out.push_back(mine[k]);
    return out;
}

std::string TransformerArch::keys() {
    std::string out;
    TransformerArch a;
    visitSwitches(a, [&](const char* name, auto&) { out += (out.empty() ? "" : ", ") + std::string(name); });
    return out;
}

} // namespace shardscope
