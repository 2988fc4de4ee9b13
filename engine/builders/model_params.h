#pragma once
// Parameters of the built-in model builders, settable as key=value.

#include "engine/builders/transformer_arch.h"
#include "engine/ir/dtype.h"

#include <string>
#include <vector>

namespace shardscope {

/// Builder parameters. `batch` is the global batch; the graph is built for batch / microbatches.
struct ModelParams {
    int layers = 2;
    int hidden = 1024;
    int heads = 16;
    int kvHeads = 0;     ///< 0 means equal to heads
    int ffn = 0;         ///< 0 means 4 x hidden
    int seq = 1024;
    int vocab = 50257;
    int batch = 8;
    int experts = 8;
    int topK = 2;
    int image = 224;     ///< resnet input resolution
    int classes = 1000;  ///< resnet classes
    bool tieEmbeddings = false;
    bool dropout = false; ///< transformer builders: dropout after attention probabilities, attention and MLP
    DType dtype = DType::BF16;
    TransformerArch arch; ///< llama and moe builders: the Hugging Face families' differences

    /// Sets `key` from `value`; throws InputError for an unknown key or a bad value.
    void set(const std::string& key, const std::string& value);
    /// Applies "key=value" strings in order.
    void apply(const std::vector<std::string>& assignments);
    /// The parameters as "key=value" pairs, for listings.
    std::vector<std::pair<std::string, std::string>> items() const;
    /// kvHeads, or heads when unset.
    int kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; }
    /// ffn, or 4 x hidden when unset.
    int ffnSize() const { return ffn > 0 ? ffn : 4 * hidden; }
};

} // namespace shardscope
