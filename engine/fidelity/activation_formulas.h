#pragma once
// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models"), Table 2:
// activation bytes kept per transformer layer of a 16-bit GPT for b sequences of s tokens, hidden h,
// a heads and tensor-parallel size t, under each combination of tensor parallelism (TP), sequence
// parallelism (SP) and selective or full recomputation, with and without dropout. Worked example at
// their sizes (b 1, s 2048, h 4096, a 32, t 8, so as/h = 16): no parallelism, no dropout keeps
// sbh (32 + 2as/h) = 64 sbh = 537 MB per layer; TP + SP + selective 32 sbh / t = 4 sbh = 33.6 MB.

#include "engine/cost/step_settings.h"

#include <string>
#include <vector>

namespace shardscope {

/// One setting of Table 2: the engine's bytes per layer against the formula's.
struct ActivationFormulaCheck {
    std::string setting;  ///< "TP+SP+selective, dropout"
    std::string formula;  ///< "34sbh/t"
    double predicted = 0; ///< bytes per layer per device
    double published = 0; ///< the formula's bytes
};

/// Activation bytes per device of the gpt builder at Table 2's sizes with `layers` layers, one
/// sequence per device: over data=8 for `dp`, model=8 for the Megatron strategies.
double table2ActivationBytes(int layers, bool dropout, const std::string& strategy, Recompute recompute,
                             AttentionKernel attention = AttentionKernel::Unfused);

/// Every setting of Table 2 with and without dropout; a layer's bytes are the difference between
/// the models of 3 and 2 layers, so embedding, head and the recomputed layer's working set cancel.
std::vector<ActivationFormulaCheck> activationFormulaChecks();

} // namespace shardscope
