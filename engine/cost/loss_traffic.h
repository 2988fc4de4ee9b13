#pragma once
// The memory traffic of a cross-entropy over the logits, as the frameworks run it (docs/DESIGN.md,
// Loss in FP32).

#include "engine/cost/step_settings.h"
#include "engine/ir/dtype.h"

namespace shardscope {

/// HBM bytes per logit of a cross-entropy step and the FP32 working copy it holds.
struct LossTraffic {
    double forward = 0;   ///< bytes read and written per logit in the forward
    double backward = 0;  ///< bytes read and written per logit in the backward
    double workspace = 0; ///< bytes per logit of the FP32 copy alive while the loss runs
};

/// A cross-entropy over logits of type `logits` run by `kernel`.
/// Unfused: in FP32, pass by pass, as Megatron-Core's vocab-parallel loss does
/// (megatron/core/tensor_parallel/cross_entropy.py; torchtitan's cast and F.cross_entropy move about
/// as much): the forward casts the logits to FP32 (read the logit, write 4), takes the row maximum
/// (read 4), shifts in place (8), exponentiates in place (8), sums (4) and divides by the sum in place
/// (8); the backward scales the saved softmax by the loss gradient in place (8, the one-hot
/// subtraction touches one logit a row) and autograd casts the gradient back (read 4, write the logit).
/// Fused: Transformer Engine's kernel (transformer_engine/pytorch/triton/cross_entropy.py) reads the
/// logits once for the running maximum and sum, once more to write the gradient over them in place;
/// the backward scales that gradient in place. No FP32 copy.
LossTraffic crossEntropyTraffic(DType logits, LossKernel kernel);

} // namespace shardscope
