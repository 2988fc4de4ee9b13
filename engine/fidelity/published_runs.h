#pragma once
// Published training measurements the predictions are judged against (README "Fidelity"): each run
// as the paper describes it, with its measured figure. Megatron-LM trains with dropout 0.1 by
// default, so the GPT runs build with dropout.

#include "engine/fidelity/measured_run.h"

#include <vector>

namespace shardscope {

/// Megatron-LM on A100s with unfused attention: Narayanan et al. 2021 Table 1 rows 1-4 (no
/// pipelining) and Korthikanti et al. 2022's 22B iteration times (their Table 4; configuration from
/// their Table 1).
std::vector<MeasuredRun> megatronFamily();
/// torchtitan (PyTorch FSDP2, fused attention, overlap) on 64 A100s: Llama 3 70B and Llama 2 70B
/// with full activation checkpointing, Llama 2 13B without (torchtitan's docs/performance.md).
std::vector<MeasuredRun> torchtitanFamily();
/// Megatron-LM with pipelining on A100s: Narayanan et al. 2021 Table 1 rows 5-10 and Korthikanti
/// et al. 2022 Table 3 (175B, 530B, 1T; full recomputation and SP + selective).
std::vector<MeasuredRun> pipelinedFamily();
/// Every family: Megatron's, torchtitan's, the pipelined runs.
std::vector<MeasuredRun> publishedRuns();

} // namespace shardscope
