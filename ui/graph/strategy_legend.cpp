#include "strategy_legend.h"

#include <algorithm>
#include <map>

namespace shardscope::ui {

namespace {

std::string factorRole(const Op& op, const std::string& factor) {
    if (factor == op.hints.batch)
        return "batch";
    if (factor == op.hints.sequence)
        return "sequence";
    if (factor == op.hints.expert)
        return "experts";
    if (factor == "n" || factor == "g") // heads, or the key-value head groups of grouped-query attention
        return "heads";
    if (factor == "v")
        return "vocab";
    return factor + " split";
}

} // namespace

std::string strategyLabel(const Op& op, const OpStrategy& s, const Mesh& mesh) {
    std::string out;
    for (std::size_t a = 0; a < s.factorOfAxis.size(); ++a) {
        const int f = s.factorOfAxis[a];
        if (f < 0)
            continue;
        out += (out.empty() ? "" : ", ") + factorRole(op, op.rule.factors[static_cast<std::size_t>(f)].name) +
               " over " + mesh.axes[a].name;
    }
    return out.empty() ? "replicated" : out;
}

StrategyLegend buildLegend(const Graph& graph, const Plan& plan) {
    std::map<std::string, int> counts;
    std::vector<std::string> labels(graph.ops().size());
    for (OpId o : graph.topoOrder()) {
        labels[o.index()] = strategyLabel(graph.op(o), plan.ops[o.index()].strategy, plan.mesh);
        ++counts[labels[o.index()]];
    }
    StrategyLegend legend;
    for (const auto& [label, ops] : counts)
        legend.entries.push_back(LegendEntry{label, ops, label == "replicated"});
    std::stable_sort(legend.entries.begin(), legend.entries.end(),
                     [](const LegendEntry& a, const LegendEntry& b) { return a.ops > b.ops; });
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < legend.entries.size(); ++i)
        index[legend.entries[i].label] = static_cast<int>(i);
    for (const std::string& label : labels)
        legend.entryOfOp.push_back(index[label]);
    return legend;
}

} // namespace shardscope::ui
