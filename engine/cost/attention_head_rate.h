#pragma once
// How fast a fused attention kernel runs for its head size, relative to heads of 128 (the size the
// devices' attention efficiencies are fitted at). Shah et al. 2024 (FlashAttention-3), Figure 5, H100
// BF16 forward at 4k and 8k tokens: cuDNN's kernel reaches 363 and 379 TFLOP/s at head size 64 against
// 609 and 600 at 128 (FlashAttention-3 420 and 460 against 638 and 646): a small head feeds the tensor
// cores a short inner dimension, and the softmax work per FLOP doubles. Heads of 128 or more run at 1.

#include <cstdint>

namespace shardscope {

/// The rate of a fused attention kernel with heads of `headDim` relative to heads of 128:
/// (headDim / 128)^0.71 below 128 (0.61 at 64, cuDNN's measured 0.60-0.63), 1 at 128 and above or
/// when unknown (0).
double attentionHeadDimRate(std::int64_t headDim);

} // namespace shardscope
