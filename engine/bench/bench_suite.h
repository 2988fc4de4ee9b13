#pragma once
// The search benchmarks behind `shardscope-cli bench` (targets in README "Benchmarks"). Figures are medians of
// several runs on one thread; targets are checked and misses marked
// (bench_targets.h), never asserted in unit tests.

#include "engine/bench/bench_targets.h"

#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace shardscope::bench {

/// One benchmark case's measured figures.
struct BenchRow {
    std::string name;          ///< what the row measures
    std::string model;
    int devices = 0;
    std::string algorithm;     ///< as requested
    std::string mesh;          ///< as requested ("auto" or the axes)
    std::string chosenMesh;    ///< what the search kept
    int runs = 0;
    double medianSeconds = 0;  ///< engine wall time, median of the runs
    double solveSeconds = 0;   ///< of it, inside the solvers (median; speed rows)
    double states = 0;
    int ops = 0;
    double stepTime = 0;       ///< the plan's step time, simulated
    double baselineStepTime = 0; ///< best feasible baseline (dp, megatron, megatron-sp) on the chosen mesh, simulated
    bool feasible = false;
    BenchTarget target;        ///< the issue's target for this row
    std::vector<std::string> misses; ///< what the row misses of it (markMisses()); empty when met
    // Plan-quality rows only:
    std::string baselineName;  ///< the best baseline over every mesh and settings combination
    bool baselineFeasible = false; ///< whether that baseline fits
    std::string settings;      ///< what the search chose: "zero1 selective m16"
    double peakMemory = 0;     ///< the searched plan's peak bytes per device
    double capacity = 0;       ///< device memory
    std::optional<double> optimalityGap; ///< SearchReport::optimalityGap of the last run
    // Re-search after an edit (plan-quality rows): one op of the middle block locked to another strategy.
    std::string edit;                    ///< "layers.40.mlp.down locked to data:b model:f"
    std::optional<double> reSearchSeconds; ///< median time of "re-search around locks" with the search's memory
    double reSearchStep = 0;             ///< its plan's step, simulated
    bool reSearchIncremental = false;    ///< whether the memory carried over
    std::optional<double> scratchSeconds; ///< the same locked search without the memory, once
    double scratchStep = 0;              ///< its plan's step, simulated (must equal reSearchStep)
    // Instruction counts (`bench --instructions`):
    int scenario = -1;                   ///< index into countableScenarios() of the search it times; -1 for none
    std::optional<double> instructions;  ///< of that search once, in a fresh process (callgrind)
};

/// Which suites `bench` runs.
enum class BenchSuite { All, Speed, Quality };

/// A search the benchmarks run: a model (a preset, with builder overrides and the global batch), a
/// cluster preset and node count, a mesh ("auto": chosen) and an algorithm.
struct BenchScenario {
    std::string name;
    std::string model;
    std::vector<std::string> sets;
    std::optional<int> batch;      ///< the global batch; the preset's when not given
    std::string cluster = "dgx-a100";
    int nodes = 1;
    std::string mesh = "auto";
    std::string algorithm = "auto";
    bool settingsOpen = true;      ///< ZeRO, recomputation and micro-batches chosen by the search
    bool clockWalk = true;         ///< walked by the one-clock check (one_clock.h); off where its search alone takes seconds
};

/// The plan-quality scenarios: published models at their published global batches, 8 to 512 GPUs.
std::vector<BenchScenario> qualityScenarios();
/// The speed suite's searches with their targets (`quick` leaves out the slowest contrast run).
std::vector<std::pair<BenchScenario, BenchTarget>> speedScenarios(bool quick);

/// Every scenario whose search a row times, quality rows first, then the speed suite's (nothing left
/// out): `bench --instructions` names them by index (BenchRow::scenario).
std::vector<BenchScenario> countableScenarios();

/// Runs every case whose name contains `only` (every case when empty); `quick` runs fewer repetitions
/// and skips the largest contrast runs. `log` is told each case as it starts. Every row's misses are
/// marked.
std::vector<BenchRow> runBench(bool quick, BenchSuite suite, const std::function<void(const std::string&)>& log,
                               const std::string& only = {});

/// The plan-quality suite: searched step time against the best named baseline (every registry entry on
/// every candidate mesh, every recomputation and micro-batch count), at published batches. `runs`
/// searches per case on one thread.
std::vector<BenchRow> runPlanQuality(int runs, const std::function<void(const std::string&)>& log,
                                     const std::string& only = {});

} // namespace shardscope::bench
