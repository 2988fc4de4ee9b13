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
/// Megatron-Core on H100 in BF16: the Megatron-LM README's weak-scaling table, 1.7B to 314B (four rows
/// without pipelining, four with), model TFLOP/s per GPU. The dgx-h100 preset's BF16 figures are
/// fitted to the four without (fidelity_calibration.h, h100Fit); the pipelined four are predictions.
std::vector<MeasuredRun> megatronH100Family();
/// NVIDIA Megatron-Bridge's performance summary (25.11 container): the dense Llama 3 rows in FP8
/// (current scaling) and MXFP8 on DGX-H100, DGX-B200, GB200 NVL72 and GB300 NVL72, Qwen3-30B-A3B with
/// expert parallelism 8, Qwen3-235B-A22B and DeepSeek-V3 (its config.json, on GB200 with the layout
/// Megatron-Bridge's recipe gives PP 4 x VP 4), tokens per second per GPU; then the same summary's rows of
/// the 26.08 container for both Qwen3 models on GB200 and GB300 (named "[26.08]"), then GPT OSS 120B (its
/// config.json: sliding-window and full layers in turn) in BF16 on 64 GB300s, GB200s and B200s (25.11) and
/// in MXFP8 on 64 GB300s and GB200s (26.08), and last the 25.11 H100 Qwen3-235B-A22B row (TP 2 with expert
/// parallelism 32 over 16 data-parallel ranks: the experts fold over the TP ranks, the etp1 baseline) and
/// the 25.11 H100 GPT OSS row (PP 4: 9 layers a stage, cut inside the model's pairs of layers).
/// The systems' FP8
/// GEMM efficiencies are fitted to their Llama 3 FP8 rows (fidelity_calibration.h, fp8Fits); the rest
/// (Llama 3.1 405B and Qwen3-235B with Megatron-Bridge's cut, which counts the embedding and the loss as
/// layers, among them) are predictions. Not here: the other DeepSeek-V3 rows (PP x VP for which the
/// recipe gives no layout, or with multi-token prediction, which the model lacks).
std::vector<MeasuredRun> megatronBridgeFamily();
/// The A100 families the dgx-a100 preset is judged on: Megatron's, torchtitan's, the pipelined runs.
std::vector<MeasuredRun> publishedRuns();

} // namespace shardscope
