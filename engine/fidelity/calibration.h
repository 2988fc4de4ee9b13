#pragma once
// Fitting a cluster's efficiencies to measured runs (`shardscope-cli calibrate`): the device's GEMM
// efficiency, its fused-attention efficiency, its achieved fraction of memory bandwidth (memory-bound
// ops), and each link level's achieved fraction of bandwidth, latency per ring step and base latency
// per collective, by least squares on log(predicted / measured) step
// times (Levenberg-Marquardt over the logarithms of the parameters, so they stay positive;
// efficiencies are capped at 1), with a Gaussian prior at the start cluster: runs weigh as measured
// to 2%, parameters as known to a factor of e^0.5. A parameter the runs cannot pin down stays near its
// start; one no run depends on keeps it.
//
// Example: three gpt runs measured 10% slower than predicted on a node whose GEMMs dominate: the fit
// lowers the GEMM efficiency by about a tenth and leaves the inter-node level as it was.

#include "engine/cluster/cluster.h"
#include "engine/fidelity/measured_run.h"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

/// One fitted quantity.
struct CalibratedParameter {
    std::string name;   ///< "device.efficiency", "levels[1].efficiency", ...
    double initial = 0;
    double fitted = 0;
};

/// The fit and how each run's prediction moved.
struct Calibration {
    Cluster cluster;                          ///< the start cluster with the fitted values
    std::vector<CalibratedParameter> parameters;
    std::vector<double> before;               ///< predicted step time per run, start cluster
    std::vector<double> after;                ///< predicted step time per run, fitted cluster
    int iterations = 0;
    bool cancelled = false;                   ///< stopped early: the best point so far
};

/// Called after each iteration with its number (from 1) and the fit's cost (sum of squared
/// weighted residuals).
using CalibrationProgress = std::function<void(int iteration, double cost)>;

/// The names of the quantities calibrate() can fit on `cluster`: "device.efficiency",
/// "device.attention_efficiency", "device.attention_dropout_efficiency", "device.memory_efficiency", "device.fp8_efficiency",
/// "device.overlap_slowdown", then per level
/// "levels[i].efficiency", "levels[i].latency", "levels[i].base_latency".
std::vector<std::string> calibrationParameters(const Cluster& cluster);

/// Fits `start` to the runs' measured step times (RunMetric::StepSeconds), moving only the parameters
/// `fit` names (names of calibrationParameters(); "device" for the device's efficiencies but FP8's and
/// dropout's, "fp8" for the FP8 GEMMs' efficiency, "dropout" for the attention kernel's with dropout,
/// "overlap" for its overlap slowdown, "links" for every link quantity; empty: all of them) and holding the rest. Throws InputError naming a run that cannot be
/// predicted or a name that is not a parameter. A stop request ends the fit after the current
/// iteration.
Calibration calibrate(const Cluster& start, const std::vector<MeasuredRun>& runs, const std::vector<std::string>& fit = {},
                      std::stop_token stop = {}, const CalibrationProgress& progress = {});

} // namespace shardscope
