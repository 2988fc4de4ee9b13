#pragma once
// A training run someone measured, described as the CLI would evaluate it, and the prediction of it:
// the model, the cluster, the expert's plan and settings, and the step time (or throughput) measured.
// The fidelity table (published_runs.h) and calibration compare predictions with these figures.

#include "engine/cluster/cluster.h"
#include "engine/cost/step_settings.h"

#include <string>
#include <vector>

namespace shardscope {

/// What a measurement reports: seconds per step; model TFLOP/s per GPU by Narayanan et al. 2021's
/// count for GPT models, F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per step (full recomputation's
/// extra forward included) over step time x GPUs; model TFLOP/s per GPU by Megatron-Core's count
/// (megatron/training/training.py, num_floating_point_operations) for GPT models with multi-head
/// attention and a 4h MLP, F = 12 B s l h^2 (2 + s/h + 4 + V/(2 l h)), no recomputation counted; or
/// tokens per second per GPU (torchtitan's "WPS", Megatron-Bridge's "Tokens/sec/GPU"), B s over step
/// time x GPUs, for a built-in model.
enum class RunMetric { StepSeconds, GptTflopsPerGpu, MegatronCoreTflopsPerGpu, TokensPerGpuSecond };

/// The unit of a metric as the fidelity table prints it: "s", "TFLOP/s per GPU", "tokens/s per GPU".
const char* runMetricUnit(RunMetric metric);

/// One measured run.
struct MeasuredRun {
    std::string name;                ///< "Narayanan Table 1 row 1 (1.7B, TP 1)"
    std::string source;              ///< paper and table, or README
    std::string model;               ///< preset name or file
    std::vector<std::string> sets;   ///< builder overrides, "key=value"
    int batch = 0;                   ///< global batch (sequences)
    std::string cluster;             ///< preset name or file
    int nodes = 1;
    std::string mesh;                ///< "data=32,model=8"
    std::string strategy;            ///< a baseline name (baselines.h)
    Recompute recompute = Recompute::None;
    AttentionKernel attention = AttentionKernel::Unfused; ///< the published runs predate FlashAttention
    Precision precision = Precision::BF16; ///< StepSettings::precision
    LossKernel loss = LossKernel::Unfused; ///< StepSettings::loss
    bool overlap = true;             ///< StepSettings::overlap
    TpOverlap tpOverlap = TpOverlap::Off; ///< StepSettings::tpOverlap
    double bucketBytes = StepSettings{}.bucketBytes; ///< StepSettings::bucketBytes
    Schedule schedule = Schedule::OneFOneB; ///< StepSettings::schedule, with a pipe axis in `mesh`
    int virtualStages = 1;           ///< StepSettings::virtualStages
    std::vector<int> chunkBlocks;    ///< with a pipe axis: repeated blocks per model chunk; empty: balanced
    int microbatches = 0;            ///< 0: the fewest that fit, as the expert tunes gradient accumulation
    RunMetric metric = RunMetric::StepSeconds;
    double measured = 0;             ///< in the metric's unit
};

/// The prediction of one run.
struct RunPrediction {
    double stepTime = 0;             ///< seconds
    double value = 0;                ///< in the run's metric
    double peakMemory = 0;           ///< bytes per device
    double capacity = 0;             ///< bytes per device
    bool feasible = false;
    int microbatches = 1;
};

/// Evaluates the run's plan; throws InputError naming the run when its model, cluster, mesh or strategy
/// is unknown or does not apply.
RunPrediction predictRun(const MeasuredRun& run);
/// The same on `cluster` (resized to the run's nodes) instead of the run's own cluster.
RunPrediction predictRun(const MeasuredRun& run, const Cluster& cluster);

/// `run` with its measurement turned into seconds per step (the metric's definition read backwards:
/// Narayanan's FLOP count or the tokens of a step over the measured rate and the GPUs), so that
/// calibrate() can fit it. Throws InputError naming the run when the metric needs a built-in model.
MeasuredRun asStepSeconds(const MeasuredRun& run);

} // namespace shardscope
