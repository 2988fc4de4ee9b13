#pragma once
// Helpers the benchmark suites share: medians and repeated searches.

#include "engine/search/search.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::bench {

struct BenchScenario;

/// The search request of `s` on one thread: its graph (one micro-batch), cluster, mesh, algorithm and,
/// when its settings are open, every setting open with the graphs of other micro-batch counts.
SearchRequest requestOf(const BenchScenario& s);

/// The median of `v` (the mean of the middle two for an even count).
double median(std::vector<double> v);

/// Runs `request` `runs` times; returns the last result and sets `medianSeconds` to the median
/// engine search time, and `medianSolveSeconds` (when given) to the median time inside the solvers.
std::shared_ptr<const SearchResult> searchRepeatedly(const SearchRequest& request, int runs, double& medianSeconds,
                                                     double* medianSolveSeconds = nullptr);

struct BenchRow;

/// Fills `row` with what a search measured: its chosen mesh, runs, median time, states, ops, plan figures.
void recordSearch(BenchRow& row, const SearchResult& last, const Graph& g, int runs, double medianSeconds);

/// A baseline's name and its figures.
struct BaselineFigures {
    std::string name;
    double stepTime = 0;           ///< analytic; simulated once simulateBaseline() ran
    bool feasible = false;
    Plan plan;
    std::shared_ptr<const Graph> graph;
};

/// `b`'s step time replaced by its simulated step on `cluster`.
void simulateBaseline(BaselineFigures& b, const std::shared_ptr<const Cluster>& cluster);

/// The best registry baseline on `mesh` with `settings` (fits first, then the fastest), by full
/// evaluation; `into` keeps the better of itself and what is found here. `withoutZero` leaves out the
/// entries with a ZeRO stage (for searches that keep ZeRO off).
void bestBaselineOn(const std::shared_ptr<const Graph>& g, const std::shared_ptr<const Cluster>& c, const Mesh& mesh,
                    const StepSettings& settings,
                    std::optional<BaselineFigures>& into, bool withoutZero = false);

} // namespace shardscope::bench
