// `calibrate`: fit a cluster's efficiencies to a user's measured runs and print predicted vs measured.

#include "commands.h"

#include "engine/fidelity/calibration.h"
#include "engine/io/cluster_file.h"
#include "engine/io/json_fields.h"
#include "engine/io/measurements_file.h"
#include "engine/util/units.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runCalibrate(const CliOptions& options, std::ostream& out) {
    const Cluster start = loadCluster(options.scenario.cluster, std::nullopt);
    const std::vector<MeasuredRun> runs = loadMeasurements(options.measurements, options.scenario.cluster);
    const Calibration fit = calibrate(start, runs, options.fit);
    if (!options.out.empty())
        writeFileAtomically(options.out, clusterToJson(fit.cluster));
    if (options.json) {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t i = 0; i < runs.size(); ++i)
            rows.push_back({{"name", runs[i].name},
                            {"measured_s", runs[i].measured},
                            {"predicted_before_s", fit.before[i]},
                            {"predicted_after_s", fit.after[i]}});
        nlohmann::json params = nlohmann::json::array();
        for (const CalibratedParameter& p : fit.parameters)
            params.push_back({{"name", p.name}, {"initial", p.initial}, {"fitted", p.fitted}});
        out << nlohmann::json{{"runs", rows}, {"parameters", params}, {"iterations", fit.iterations}}.dump(1) << "\n";
        return 0;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%-44s %11s %11s %8s %11s %8s\n", "run", "measured", "before", "error",
                  "after", "error");
    out << line;
    auto error = [](double p, double m) {
        char text[32];
        std::snprintf(text, sizeof text, "%+.1f%%", 100 * (p / m - 1));
        return std::string(text);
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::snprintf(line, sizeof line, "%-44s %11s %11s %8s %11s %8s\n", runs[i].name.c_str(),
                      formatSeconds(runs[i].measured).c_str(), formatSeconds(fit.before[i]).c_str(),
                      error(fit.before[i], runs[i].measured).c_str(), formatSeconds(fit.after[i]).c_str(),
                      error(fit.after[i], runs[i].measured).c_str());
        out << line;
    }
    out << "\nparameter                                initial        fitted\n";
    for (const CalibratedParameter& p : fit.parameters) {
        std::snprintf(line, sizeof line, "%-36s %12.4g %13.4g%s\n", p.name.c_str(), p.initial, p.fitted,
                      std::abs(p.fitted - p.initial) <= 1e-9 * std::abs(p.initial) ? "  (unchanged)" : "");
        out << line;
    }
    out << "\n" << fit.iterations << " iterations"
        << (options.out.empty() ? "; --out C2.cluster.json keeps the fitted cluster" : "; wrote " + options.out) << "\n";
    return 0;
}

} // namespace shardscope::cli
