#include "engine/builders/model_params.h"

#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <cctype>

namespace shardscope {

namespace {

int parsePositive(const std::string& key, const std::string& value, bool allowZero) {
    if (value.empty() || value.size() > 9)
        throw InputError("--set " + key + "=" + value + ": expected a positive integer");
    for (char c : value)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            throw InputError("--set " + key + "=" + value + ": expected a positive integer");
    const int v = std::stoi(value);
    if (v < 1 && !(allowZero && v == 0))
        throw InputError("--set " + key + "=" + value + ": must be at least 1");
    return v;
}

bool parseFlag(const std::string& key, const std::string& value) {
    if (value != "true" && value != "false")
        throw InputError("--set " + key + "=" + value + ": expected true or false");
    return value == "true";
}

} // namespace

void ModelParams::set(const std::string& key, const std::string& value) {
    if (key == "layers") {
        layers = parsePositive(key, value, false);
        if (layers > kMaxLayers)
            throw InputError("--set layers=" + value + ": more than the limit of " + withSeparators(kMaxLayers) + " layers");
    }
    else if (key == "hidden")
        hidden = parsePositive(key, value, false);
    else if (key == "heads")
        heads = parsePositive(key, value, false);
    else if (key == "kv_heads")
        kvHeads = parsePositive(key, value, true);
    else if (key == "ffn")
        ffn = parsePositive(key, value, true);
    else if (key == "seq")
        seq = parsePositive(key, value, false);
    else if (key == "vocab")
        vocab = parsePositive(key, value, false);
    else if (key == "batch")
        batch = parsePositive(key, value, false);
    else if (key == "experts")
        experts = parsePositive(key, value, false);
    else if (key == "top_k")
        topK = parsePositive(key, value, false);
    else if (key == "image")
        image = parsePositive(key, value, false);
    else if (key == "classes")
        classes = parsePositive(key, value, false);
    else if (key == "tie_embeddings")
        tieEmbeddings = parseFlag(key, value);
    else if (key == "dropout")
        dropout = parseFlag(key, value);
    else if (key == "dtype") {
        const auto d = parseDType(value);
        if (!d)
            throw InputError("--set dtype=" + value + ": unknown dtype (bf16, fp16, fp32, fp8)");
        dtype = *d;
    } else if (!arch.set(key, value))
        throw InputError("--set " + key.substr(0, 40) + ": unknown model parameter (layers, hidden, heads, kv_heads, "
                         "ffn, seq, vocab, batch, experts, top_k, image, classes, tie_embeddings, dropout, dtype, " +
                         TransformerArch::keys() + ")");
}

void ModelParams::apply(const std::vector<std::string>& assignments) {
    for (const std::string& a : assignments) {
        const auto eq = a.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--set '" + a + "': expected key=value");
        set(a.substr(0, eq), a.substr(eq + 1));
    }
}

std::vector<std::pair<std::string, std::string>> ModelParams::items() const {
    std::vector<std::pair<std::string, std::string>> out{{"layers", std::to_string(layers)},
            {"hidden", std::to_string(hidden)},
            {"heads", std::to_string(heads)},
            {"kv_heads", std::to_string(kvHeadCount())},
            {"ffn", std::to_string(ffnSize())},
            {"seq", std::to_string(seq)},
            {"vocab", std::to_string(vocab)},
            {"batch", std::to_string(batch)},
            {"experts", std::to_string(experts)},
            {"top_k", std::to_string(topK)},
            {"image", std::to_string(image)},
            {"classes", std::to_string(classes)},
            {"tie_embeddings", tieEmbeddings ? "true" : "false"},
            {"dropout", dropout ? "true" : "false"},
            {"dtype", std::string(dtypeName(dtype))}};
    for (auto& item : arch.items())
        out.push_back(std::move(item));
    return out;
}

} // namespace shardscope
