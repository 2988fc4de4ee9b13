// `bench --fidelity`: predictions against published measurements, as predicted / published.

#include "commands.h"

#include "engine/fidelity/activation_formulas.h"
#include "engine/fidelity/fidelity_calibration.h"
#include "engine/fidelity/published_runs.h"
#include "engine/util/units.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace shardscope::cli {

namespace {

std::string ratioText(double predicted, double published) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3fx", predicted / published);
    return text;
}

/// A measured or predicted figure in its metric's unit.
std::string valueText(RunMetric metric, double value) {
    char text[32];
    switch (metric) {
    case RunMetric::StepSeconds:
        return formatSeconds(value);
    case RunMetric::GptTflopsPerGpu:
    case RunMetric::MegatronCoreTflopsPerGpu:
        std::snprintf(text, sizeof text, "%.1f TF", value);
        return text;
    case RunMetric::TokensPerGpuSecond:
        std::snprintf(text, sizeof text, "%.0f tok/s", value);
        return text;
    }
    return {};
}

std::string percent(double predicted, double measured) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", 100 * (predicted / measured - 1));
    return text;
}

/// A fit's parameters, one line each: name, start, fitted value.
void printParameters(std::ostream& out, const std::vector<CalibratedParameter>& parameters) {
    for (const CalibratedParameter& p : parameters) {
        char line[128];
        std::snprintf(line, sizeof line, "  %-36s %8.4g -> %.4g\n", p.name.c_str(), p.initial, p.fitted);
        out << line;
    }
}

/// One run of a fit or cross-check: its predicted and measured step, and the error.
void printStep(std::ostream& out, const MeasuredRun& run, double predicted) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-54s %10s %10s %8s\n", run.name.c_str(), formatSeconds(predicted).c_str(),
                  formatSeconds(run.measured).c_str(), percent(predicted, run.measured).c_str());
    out << line;
}

/// The preset fits and the cross-checks (fidelity_calibration.h) as text.
void printCalibration(std::ostream& out) {
    out << "\ndgx-a100 device efficiencies fitted to the runs without pipelining, from the defaults (the preset ships them):\n";
    printParameters(out, presetFit().parameters);
    const SystemFit h100 = h100Fit();
    out << "\ndgx-h100 device efficiencies fitted to the Megatron-LM README's H100 rows without pipelining, from the "
           "defaults (the dgx-h100 and dgx-h200 presets ship them):\n";
    printParameters(out, h100.fit.parameters);
    for (std::size_t i = 0; i < h100.fitted.size(); ++i)
        printStep(out, h100.fitted[i], h100.fit.after[i]);
    for (const SystemFit& f : fp8Fits()) {
        out << "\n" << f.preset << " FP8 GEMM efficiency fitted to Megatron-Bridge's FP8 rows of its system, from the "
               "default (the preset ships it):\n";
        printParameters(out, f.fit.parameters);
        for (std::size_t i = 0; i < f.fitted.size(); ++i)
            printStep(out, f.fitted[i], f.fit.after[i]);
    }
    for (const CrossCheck& c : crossChecks()) {
        out << "\n" << c.name << ":\n";
        for (std::size_t i = 0; i < c.predicted.size(); ++i)
            printStep(out, c.predicted[i], c.predictions[i]);
    }
}

} // namespace

int runFidelity(const CliOptions& options, std::ostream& out) {
    // The A100 runs the preset is fitted to and judged on, then the H100 and Blackwell predictions.
    auto runs = publishedRuns();
    for (MeasuredRun& r : megatronH100Family())
        runs.push_back(std::move(r));
    for (MeasuredRun& r : megatronBridgeFamily())
        runs.push_back(std::move(r));
    std::vector<RunPrediction> predictions;
    for (const MeasuredRun& r : runs) {
        std::cerr << "bench: " << r.name << "\n";
        predictions.push_back(predictRun(r));
    }
    const auto formulas = activationFormulaChecks();
    if (options.json) {
        nlohmann::json list = nlohmann::json::array();
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const RunPrediction& p = predictions[i];
            list.push_back({{"check", runs[i].name},
                            {"source", runs[i].source},
                            {"unit", runMetricUnit(runs[i].metric)},
                            {"predicted", p.value},
                            {"published", runs[i].measured},
                            {"ratio", p.value / runs[i].measured},
                            {"step_time_s", p.stepTime},
                            {"microbatches", p.microbatches},
                            {"peak_memory_bytes", p.peakMemory},
                            {"capacity_bytes", p.capacity},
                            {"feasible", p.feasible}});
        }
        for (const ActivationFormulaCheck& f : formulas)
            list.push_back({{"check", "activations per layer, " + f.setting},
                            {"source", "Korthikanti et al. 2022, Table 2: " + f.formula},
                            {"unit", "bytes"},
                            {"predicted", f.predicted},
                            {"published", f.published},
                            {"ratio", f.predicted / f.published}});
        for (const CrossCheck& c : crossChecks()) {
            nlohmann::json on = nlohmann::json::array();
            for (const MeasuredRun& r : c.fitted)
                on.push_back(r.name);
            for (std::size_t i = 0; i < c.predicted.size(); ++i)
                list.push_back({{"check", c.predicted[i].name + ", " + c.name},
                                {"source", c.predicted[i].source},
                                {"unit", "s"},
                                {"predicted", c.predictions[i]},
                                {"published", c.predicted[i].measured},
                                {"ratio", c.predictions[i] / c.predicted[i].measured},
                                {"calibrated_on", on}});
        }
        out << list.dump(1) << "\n";
        return 0;
    }
    char line[512];
    std::snprintf(line, sizeof line, "%-56s %12s %12s %8s  %s\n", "check", "predicted", "published", "ratio", "notes");
    out << line;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const MeasuredRun& r = runs[i];
        const RunPrediction& p = predictions[i];
        const std::string predicted = valueText(r.metric, p.value);
        const std::string published = valueText(r.metric, r.measured);
        const std::string notes = "step " + formatSeconds(p.stepTime) + ", m" + std::to_string(p.microbatches) + ", peak " +
                                  formatBytes(p.peakMemory) + " of " + formatBytes(p.capacity) +
                                  (p.feasible ? "" : " (does not fit)") + "; " + r.source;
        std::snprintf(line, sizeof line, "%-56s %12s %12s %8s  %s\n", r.name.c_str(), predicted.c_str(),
                      published.c_str(), ratioText(p.value, r.measured).c_str(), notes.c_str());
        out << line;
    }
    for (const ActivationFormulaCheck& f : formulas) {
        const std::string name = "activations per layer, " + f.setting;
        std::snprintf(line, sizeof line, "%-56s %12s %12s %8s  %s\n", name.c_str(), formatBytes(f.predicted).c_str(),
                      formatBytes(f.published).c_str(), ratioText(f.predicted, f.published).c_str(),
                      ("Korthikanti et al. 2022, Table 2: " + f.formula).c_str());
        out << line;
    }
    printCalibration(out);
    return 0;
}

} // namespace shardscope::cli
