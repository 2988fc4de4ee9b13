#pragma once
// Helpers the benchmark suites share: medians and repeated searches.

#include "engine/search/search.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::bench {

/// The median of `v` (the mean of the middle two for an even count).
double median(std::vector<double> v);

/// Runs `request` `runs` times; returns the last result and sets `medianSeconds` to the median
/// engine search time.
std::shared_ptr<const SearchResult> searchRepeatedly(const SearchRequest& request, int runs, double& medianSeconds);

struct BenchRow;

/// Fills `row` with what a search measured: its chosen mesh, runs, median time, states, ops, plan figures.
void recordSearch(BenchRow& row, const SearchResult& last, const Graph& g, int runs, double medianSeconds);

/// A baseline's name and its evaluated figures.
struct BaselineFigures {
    std::string name;
    double stepTime = 0;
    bool feasible = false;
};

/// The best registry baseline on `mesh` with `settings` (fits first, then the fastest), by full
/// evaluation; `into` keeps the better of itself and what is found here. `withoutZero` leaves out the
/// entries with a ZeRO stage (for searches that keep ZeRO off).
void bestBaselineOn(const std::shared_ptr<const Graph>& g, const std::shared_ptr<const Cluster>& c, const Mesh& mesh,
                    const StepSettings& settings,
                    std::optional<BaselineFigures>& into, bool withoutZero = false);

} // namespace shardscope::bench
