#pragma once
// The architecture switches of the llama and moe builders that tell the Hugging Face families apart
// (Qwen, Gemma, Phi-3, GPT-NeoX, StarCoder2, DeepSeek, GPT OSS): head size, biases, norms, MLP kind,
// residual wiring, sliding-window layers, attention sinks, shared experts, expert biases, leading
// dense layers and multi-head latent attention. Defaults are
// Llama's; each is settable as --set key=value.

#include <string>
#include <utility>
#include <vector>

namespace shardscope {

struct TransformerArch {
    int headDim = 0;               ///< head_dim: per-head size; 0 = hidden / heads (Gemma, Qwen3 set it apart)
    bool qkvBias = false;          ///< qkv_bias: the query, key and value projections have biases (Qwen2)
    bool linearBias = false;       ///< linear_bias: every linear layer has a bias (GPT-NeoX, StarCoder2)
    bool qkNorm = false;           ///< qk_norm: RMSNorm over each query and key head (Qwen3, Gemma 3)
    bool postNorms = false;        ///< post_norms: norms after attention and MLP too (Gemma 2 and 3)
    bool layerNorm = false;        ///< layer_norm: LayerNorm with bias instead of RMSNorm
    bool gatedMlp = true;          ///< gated_mlp: gate x up (SwiGLU / GeGLU); false: up, GELU, down
    bool parallelResidual = false; ///< parallel_residual: x + attn(norm1 x) + mlp(norm2 x) (GPT-NeoX)
    int sharedExperts = 0;         ///< shared_experts: experts every token takes besides the routed ones
    int sharedFfn = 0;             ///< shared_ffn: a shared expert's size; 0 = the routed experts' ffn
    bool sharedGate = false;       ///< shared_gate: a sigmoid gate scales the shared experts (Qwen2-MoE)
    int denseLayers = 0;           ///< dense_layers: leading layers with a dense MLP instead of experts
    int denseFfn = 0;              ///< dense_ffn: those layers' intermediate size; 0 = 4 x hidden
    int qLoraRank = 0;             ///< q_lora_rank: latent attention's query compression; 0 = none
    int kvLoraRank = 0;            ///< kv_lora_rank: latent attention's key-value compression; 0 = ordinary attention
    int ropeDim = 0;               ///< rope_dim: latent attention's rotary part of each query/key head
    int vHeadDim = 0;              ///< v_head_dim: latent attention's value head size; 0 = head size
    int slidingWindow = 0;         ///< sliding_window: keys a sliding-window layer's queries see; 0 = none
    int fullEvery = 0;             ///< full_every: every n-th layer (n - 1, 2n - 1, ...) attends fully; 0 = none does
    bool attentionSinks = false;   ///< attention_sinks: a learned per-head logit joins each softmax (GPT OSS)
    bool expertBias = false;       ///< expert_bias: the router and the experts' linear layers have biases (GPT OSS)

    /// True when the attention is DeepSeek's multi-head latent attention.
    bool latentAttention() const { return kvLoraRank > 0; }
    /// The sliding window of layer `layer` in a model of sequence `seq`: 0 when it attends every key
    /// (no window, a full-attention layer, or a window no shorter than the sequence).
    int windowOf(int layer, int seq) const;
    /// Sets `key` from `value`; false when `key` is not an architecture switch. Throws InputError for
    /// a bad value.
    bool set(const std::string& key, const std::string& value);
    /// The switches that differ from Llama's, as "key=value" pairs, for listings.
    std::vector<std::pair<std::string, std::string>> items() const;
    /// The names of every switch, for messages.
    static std::string keys();
};

} // namespace shardscope
