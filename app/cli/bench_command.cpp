#include "commands.h"
#include "instruction_count.h"

#include "engine/bench/bench_suite.h"
#include "engine/bench/one_clock.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace shardscope::cli {

namespace {

/// `bench --suite clock`: the analytic and simulated step of every benchmark plan and baseline.
int runClock(const CliOptions& options, std::ostream& out) {
    const auto rows = bench::oneClockWalk([](const std::string& what) { std::cerr << "bench: " << what << "\n"; });
    const bench::ClockRow* worst = nullptr;
    for (const auto& r : rows)
        if (!worst || r.disagreement() > worst->disagreement())
            worst = &r;
    if (options.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& r : rows)
            list.push_back({{"scenario", r.scenario},
                            {"plan", r.plan},
                            {"mesh", r.mesh},
                            {"overlap", r.overlap},
                            {"tp_overlap", std::string(tpOverlapName(r.tpOverlap))},
                            {"analytic_step_time_s", r.analytic},
                            {"simulated_step_time_s", r.simulated}});
        out << list.dump(1) << "\n";
        return 0;
    }
    char line[512];
    std::snprintf(line, sizeof line, "%-40s %-22s %-26s %-7s %11s %11s %7s\n", "scenario", "plan", "mesh", "overlap",
                  "analytic", "simulated", "ratio");
    out << line;
    for (const auto& r : rows) {
        std::snprintf(line, sizeof line, "%-40s %-22s %-26s %-7s %11s %11s %7.4f\n", r.scenario.c_str(), r.plan.c_str(),
                      r.mesh.c_str(), r.overlapText().c_str(), formatSeconds(r.analytic).c_str(),
                      formatSeconds(r.simulated).c_str(), r.analytic / r.simulated);
        out << line;
    }
    if (worst)
        out << "worst: " << worst->scenario << ", " << worst->plan << " on " << worst->mesh << ", overlap "
            << worst->overlapText() << ": analytic / simulated " << worst->analytic / worst->simulated
            << " (" << rows.size() << " plans)\n";
    return 0;
}

/// 1 with --check when a row misses its target, else 0.
int exitStatus(const CliOptions& options, const std::vector<bench::BenchRow>& rows) {
    const bool missed = std::any_of(rows.begin(), rows.end(), [](const bench::BenchRow& r) { return !r.misses.empty(); });
    return options.check && missed ? 1 : 0;
}

} // namespace

int runBench(const CliOptions& options, std::ostream& out) {
    if (options.countScenario >= 0)
        return runCountedSearch(options.countScenario);
    if (options.benchSuite == "fidelity")
        return runFidelity(options, out);
    if (options.benchSuite == "clock")
        return runClock(options, out);
    const bench::BenchSuite suite = options.benchSuite == "speed"     ? bench::BenchSuite::Speed
                                    : options.benchSuite == "quality" ? bench::BenchSuite::Quality
                                                                      : bench::BenchSuite::All;
    auto log = [](const std::string& what) { std::cerr << "bench: " << what << "\n"; };
    auto rows = bench::runBench(options.quick, suite, log, options.benchOnly);
    if (rows.empty())
        throw InputError("bench --only " + options.benchOnly + ": no row of the suite has that in its name");
    if (options.instructions)
        for (bench::BenchRow& r : rows)
            if (r.scenario >= 0) {
                log("instructions: " + r.name + " (callgrind)");
                std::string error;
                r.instructions = countInstructions(r.scenario, error);
                if (!r.instructions)
                    throw InputError("bench --instructions: " + error);
            }
    if (options.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& r : rows)
            list.push_back({{"name", r.name},
                            {"model", r.model},
                            {"devices", r.devices},
                            {"algorithm", r.algorithm},
                            {"mesh", r.mesh},
                            {"chosen_mesh", r.chosenMesh},
                            {"runs", r.runs},
                            {"median_s", r.medianSeconds},
                            {"solve_s", r.solveSeconds},
                            {"states_explored", r.states},
                            {"ops", r.ops},
                            {"step_time_s", r.stepTime},
                            {"best_baseline_step_time_s", r.baselineStepTime},
                            {"feasible", r.feasible},
                            {"best_baseline", r.baselineName},
                            {"settings_chosen", r.settings},
                            {"peak_memory_bytes", r.peakMemory},
                            {"capacity_bytes", r.capacity},
                            {"optimality_gap", r.optimalityGap ? nlohmann::json(*r.optimalityGap) : nlohmann::json(nullptr)},
                            {"edit", r.edit},
                            {"re_search_s", r.reSearchSeconds ? nlohmann::json(*r.reSearchSeconds) : nlohmann::json(nullptr)},
                            {"re_search_step_time_s", r.reSearchStep},
                            {"re_search_incremental", r.reSearchIncremental},
                            {"scratch_s", r.scratchSeconds ? nlohmann::json(*r.scratchSeconds) : nlohmann::json(nullptr)},
                            {"scratch_step_time_s", r.scratchStep},
                            {"instructions", r.instructions ? nlohmann::json(*r.instructions) : nlohmann::json(nullptr)},
                            {"target", r.target.words},
                            {"target_met", r.misses.empty()},
                            {"misses", r.misses}});
        out << list.dump(1) << "\n";
        return exitStatus(options, rows);
    }
    char line[512];
    std::snprintf(line, sizeof line, "%-34s %7s %5s %-6s %-16s %10s %10s %11s %11s  %s\n", "case", "devices", "ops",
                  "algo", "mesh", "median", "states", "step", "vs baseline", "target");
    out << line;
    for (const auto& r : rows) {
        const std::string ratio = r.baselineStepTime > 0 && r.baselineStepTime < 1e300
                                      ? std::to_string(r.stepTime / r.baselineStepTime).substr(0, 5) + "x"
                                      : "-";
        std::snprintf(line, sizeof line, "%-34s %7d %5d %-6s %-16s %10s %10s %11s %11s  %s\n", r.name.c_str(), r.devices,
                      r.ops, r.algorithm.c_str(), r.chosenMesh.c_str(), formatSeconds(r.medianSeconds).c_str(),
                      formatCount(r.states).c_str(), formatSeconds(r.stepTime).c_str(), ratio.c_str(), r.target.words.c_str());
        out << line;
        if (!r.baselineName.empty())
            out << "      chose " << r.settings << ", peak " << formatBytes(r.peakMemory) << " of "
                << formatBytes(r.capacity) << "; best baseline " << r.baselineName << " "
                << formatSeconds(r.baselineStepTime) << "; "
                << (r.optimalityGap ? "at most " + std::to_string(100 * *r.optimalityGap).substr(0, 5) + "% above the fastest that fits"
                                    : std::string("no optimality bound"))
                << "\n";
        if (r.reSearchSeconds)
            out << "      re-search with " << r.edit << ": " << formatSeconds(*r.reSearchSeconds)
                << (r.reSearchIncremental ? " (from the search's bounds)" : " (from scratch)") << ", step "
                << formatSeconds(r.reSearchStep)
                << (r.scratchSeconds ? "; from scratch " + formatSeconds(*r.scratchSeconds) + ", step " + formatSeconds(r.scratchStep)
                                     : std::string())
                << "\n";
        if (r.instructions)
            out << "      instructions: " << formatCount(*r.instructions) << " in one search (callgrind)\n";
        for (const std::string& miss : r.misses)
            out << "      MISSED: " << miss << "\n";
    }
    std::size_t missed = 0;
    for (const auto& r : rows)
        missed += r.misses.empty() ? 0 : 1;
    out << (missed == 0 ? std::string("every row meets its target")
                        : std::to_string(missed) + " of " + std::to_string(rows.size()) + " rows miss their target")
        << "\n";
    return exitStatus(options, rows);
}

} // namespace shardscope::cli
