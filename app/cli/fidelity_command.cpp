// `bench --fidelity`: predictions against published measurements, as predicted / published.

#include "commands.h"

#include "engine/fidelity/activation_formulas.h"
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

} // namespace

int runFidelity(const CliOptions& options, std::ostream& out) {
    const auto runs = publishedRuns();
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
                            {"unit", runs[i].metric == RunMetric::StepSeconds ? "s" : "TFLOP/s per GPU"},
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
        out << list.dump(1) << "\n";
        return 0;
    }
    char line[512];
    std::snprintf(line, sizeof line, "%-56s %12s %12s %8s  %s\n", "check", "predicted", "published", "ratio", "notes");
    out << line;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const MeasuredRun& r = runs[i];
        const RunPrediction& p = predictions[i];
        const bool seconds = r.metric == RunMetric::StepSeconds;
        const std::string predicted = seconds ? formatSeconds(p.value) : std::to_string(p.value).substr(0, 5) + " TF";
        const std::string published = seconds ? formatSeconds(r.measured) : std::to_string(r.measured).substr(0, 5) + " TF";
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
    return 0;
}

} // namespace shardscope::cli
