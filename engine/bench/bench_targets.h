#pragma once
// A benchmark row's target as figures `bench` checks (issue targets, README "Benchmarks"): a time
// its median must stay under, a plan no slower than the best baseline and fitting where that one
// fits, or a growth bound against another row. `bench` marks every row that misses and, with
// --check, exits non-zero.

#include <optional>
#include <string>
#include <vector>

namespace shardscope::bench {

struct BenchRow;

/// What a row must meet.
struct BenchTarget {
    std::string words;                     ///< the target as printed ("search under 1 s")
    std::optional<double> maxSeconds;      ///< the row's median time must be below this
    std::optional<double> maxVsBaseline;   ///< searched / best baseline step at most this (plan-quality rows)
    bool fitsWhenBaselineFits = false;     ///< the plan must fit whenever the best baseline does
    std::string growthOver;                ///< the name of the row (same algorithm) whose solve time this one's is compared with
    std::optional<double> maxGrowth;       ///< at most this many times that row's time inside the solvers
    std::optional<double> maxReSearchSeconds; ///< the re-search after an edit must be below this

    /// A time target: the median under `seconds`.
    static BenchTarget timeUnder(std::string words, double seconds);
    /// A target in words only (a contrast row): nothing to miss.
    static BenchTarget described(std::string words);
};

/// What `row` misses of its target, one phrase each ("median 2.09 s over 1 s"); empty when met or
/// when it has no target. `rows` holds the row a growth target names.
std::vector<std::string> targetMisses(const BenchRow& row, const std::vector<BenchRow>& rows);

/// Sets every row's misses (BenchRow::misses).
void markMisses(std::vector<BenchRow>& rows);

} // namespace shardscope::bench
