#pragma once
// Readable names for op strategies and the legend of the graph's colours: each distinct
// description ("batch over data, heads over model") is one legend entry, most used first.

#include "engine/plans/plan.h"

#include <string>
#include <vector>

namespace shardscope::ui {

/// What `s` splits, in words: "batch over data, heads over model", "f split over model",
/// "replicated". Factors the builders name by role (batch, sequence, experts; n and g = heads, v = vocab)
/// are called by it.
std::string strategyLabel(const Op& op, const OpStrategy& s, const Mesh& mesh);

/// One colour of the legend.
struct LegendEntry {
    std::string label;
    int ops = 0;
    bool replicated = false;
};

/// The legend of a plan: entries most used first (ties by label), and each op's entry.
struct StrategyLegend {
    std::vector<LegendEntry> entries;
    std::vector<int> entryOfOp;     ///< per op
};

/// The legend of `plan` on `graph`.
StrategyLegend buildLegend(const Graph& graph, const Plan& plan);

} // namespace shardscope::ui
