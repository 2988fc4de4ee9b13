#pragma once
// Calibration against the published runs (published_runs.h): the fit that sets the dgx-a100
// preset's device efficiencies, and cross-checks that fit some runs and predict the others.
//
// Every fit starts from the device's uninformed defaults (DeviceSpec: GEMMs at 0.6 of peak, the
// fused attention kernel at 0.5, memory at its specification) and moves only the device's
// efficiencies; the link figures are NCCL's measurements (cluster_presets.cpp) and stay.
// Example: fitted on Narayanan's row 1 (no tensor parallelism) and Korthikanti's 22B (TP 8), the
// other four Megatron runs are predicted within 5.1%.

#include "engine/fidelity/calibration.h"
#include "engine/fidelity/measured_run.h"

#include <string>
#include <vector>

namespace shardscope {

/// `c` with the device efficiencies at DeviceSpec's defaults, where every fit here starts.
Cluster withDefaultEfficiencies(Cluster c);

/// The fit of the dgx-a100 device efficiencies to the published runs without pipelining (Megatron's
/// and torchtitan's families), from the defaults: the preset ships its result, and the pipelined
/// runs test it.
Calibration presetFit();

/// A preset's efficiencies fitted to published rows of its system: the preset ships the result.
struct SystemFit {
    std::string preset;                 ///< "dgx-h100"
    std::vector<MeasuredRun> fitted;    ///< in seconds per step
    Calibration fit;
};

/// The fit of the dgx-h100 device efficiencies (BF16 GEMMs, the fused attention kernel with and
/// without dropout, memory) to the Megatron-LM README's H100 rows without pipelining (1.7B-32B, all
/// with dropout), from the defaults: the dgx-h100 and dgx-h200 presets ship its result, and the
/// README's pipelined rows (70B-314B) test it.
SystemFit h100Fit();

/// One device's FP8 GEMM efficiency fitted to Megatron-Bridge rows of its system in FP8 with current
/// scaling (published_runs.h), from the default: the preset ships it, the system's other rows
/// (MXFP8, other sizes) test it.
/// The FP8 fits of dgx-h100 (Megatron-Bridge's DGX-H100 Llama 3 8B and 70B rows), dgx-b200, gb200-nvl72
/// and gb300-nvl72 (each system's Llama 3 8B FP8 row).
std::vector<SystemFit> fp8Fits();

/// Runs fitted on and runs predicted with the fit, every figure in seconds per step.
struct CrossCheck {
    std::string name;                  ///< "fitted on ..."
    std::vector<MeasuredRun> fitted;
    std::vector<MeasuredRun> predicted;
    std::vector<double> predictions;   ///< seconds per step of each predicted run on the fitted cluster
    Calibration fit;
};

/// Two runs of each family predicting the rest of it, and one family predicting the other.
std::vector<CrossCheck> crossChecks();

} // namespace shardscope
