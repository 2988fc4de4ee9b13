#include "engine/bench/bench_targets.h"

#include "engine/bench/bench_suite.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope::bench {

namespace {

std::string fixed(double x, const char* format) {
    char text[32];
    std::snprintf(text, sizeof text, format, x);
    return text;
}

} // namespace

BenchTarget BenchTarget::timeUnder(std::string words, double seconds) {
    BenchTarget t = described(std::move(words));
    t.maxSeconds = seconds;
    return t;
}

BenchTarget BenchTarget::described(std::string words) {
    BenchTarget t;
    t.words = std::move(words);
    return t;
}

std::vector<std::string> targetMisses(const BenchRow& row, const std::vector<BenchRow>& rows) {
    const BenchTarget& t = row.target;
    std::vector<std::string> misses;
    if (t.maxSeconds && !(row.medianSeconds < *t.maxSeconds))
        misses.push_back("median " + formatSeconds(row.medianSeconds) + " not under " + formatSeconds(*t.maxSeconds));
    const bool baselineKnown = row.baselineStepTime > 0 && row.baselineStepTime < 1e300;
    if (t.maxVsBaseline && baselineKnown && row.baselineFeasible &&
        row.stepTime > row.baselineStepTime * *t.maxVsBaseline * (1 + 1e-9))
        misses.push_back("searched / best baseline " + fixed(row.stepTime / row.baselineStepTime, "%.3f") + " over " +
                         fixed(*t.maxVsBaseline, "%.2f"));
    if (t.fitsWhenBaselineFits && row.baselineFeasible && !row.feasible)
        misses.push_back("does not fit where the best baseline does");
    if (t.maxReSearchSeconds && row.reSearchSeconds && !(*row.reSearchSeconds < *t.maxReSearchSeconds))
        misses.push_back("re-search after an edit " + formatSeconds(*row.reSearchSeconds) + " not under " +
                         formatSeconds(*t.maxReSearchSeconds));
    if (row.reSearchSeconds && row.scratchSeconds &&
        std::abs(row.reSearchStep - row.scratchStep) > 1e-9 * std::max(row.reSearchStep, row.scratchStep))
        misses.push_back("re-search answers " + formatSeconds(row.reSearchStep) + ", a search from scratch " +
                         formatSeconds(row.scratchStep));
    if (t.maxGrowth) {
        const auto base = std::find_if(rows.begin(), rows.end(), [&](const BenchRow& r) {
            return r.name == t.growthOver && r.algorithm == row.algorithm;
        });
        if (base == rows.end())
            misses.push_back("no row '" + t.growthOver + "' to compare with");
        else if (base->solveSeconds > 0 && !(row.solveSeconds <= base->solveSeconds * *t.maxGrowth))
            misses.push_back("solves grow " + fixed(row.solveSeconds / base->solveSeconds, "%.2f") + "x over '" +
                             t.growthOver + "', more than " + fixed(*t.maxGrowth, "%.2f") + "x");
    }
    return misses;
}

void markMisses(std::vector<BenchRow>& rows) {
    for (BenchRow& row : rows)
        row.misses = targetMisses(row, rows);
}

} // namespace shardscope::bench
