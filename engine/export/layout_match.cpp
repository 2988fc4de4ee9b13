#include "engine/export/layout_match.h"

#include "engine/plans/baselines.h"

#include <algorithm>

namespace shardscope {

std::optional<std::string> axisWithoutDegree(const Mesh& mesh, bool contextParallel, bool expertParallel) {
    for (const MeshAxis& a : mesh.axes)
        if (a.role() == AxisRole::None || (a.role() == AxisRole::Sequence && !contextParallel) ||
            (a.role() == AxisRole::Expert && !expertParallel))
            return a.name;
    return std::nullopt;
}

LayoutDifference layoutDifference(const Graph& graph, const Plan& plan, const std::string& pattern, bool expertsOverData) {
    LayoutDifference d;
    d.pattern = expertsOverData ? pattern + " with experts over data" : pattern;
    d.expected = baselinePlan(graph, plan.mesh, pattern, plan.settings, nullptr,
                              plan.pipeline.active() ? &plan.pipeline : nullptr)
                     .strategies();
    // Each axis in turn: context parallelism splits the sequence, expert parallelism the experts.
    auto splitOn = [&](AxisId axis, std::size_t o, int f) {
        OpStrategy s = d.expected[o];
        s.factorOfAxis[axis.index()] = f;
        if (verifyStrategy(graph.ops()[o], plan.mesh, s).empty())
            d.expected[o] = s;
    };
    if (const auto seq = plan.mesh.axisOf(AxisRole::Sequence))
        for (std::size_t o = 0; o < graph.ops().size(); ++o) {
            const int f = graph.ops()[o].rule.findFactor("s");
            if (f >= 0 && graph.ops()[o].rule.splittable(f))
                splitOn(*seq, o, f);
        }
    const auto data = plan.mesh.axisOf(AxisRole::Data);
    if (expertsOverData && data)
        for (std::size_t o = 0; o < graph.ops().size(); ++o) {
            const Op& op = graph.ops()[o];
            const int e = op.hints.expert.empty() ? -1 : op.rule.findFactor(op.hints.expert);
            if (e >= 0)
                splitOn(*data, o, e);
        }
    for (std::size_t o = 0; o < plan.ops.size(); ++o)
        if (!(plan.ops[o].strategy == d.expected[o]))
            d.ops.push_back(o);
    return d;
}

std::string describeDifference(const Graph& graph, const Plan& plan, const LayoutDifference& d,
                               const std::string& framework) {
    std::string list;
    for (std::size_t k = 0; k < d.ops.size() && k < 5; ++k) {
        const Op& op = graph.ops()[d.ops[k]];
        list += (k ? "; " : "") + op.name + " is " + plan.ops[d.ops[k]].strategy.toString(op.rule, plan.mesh) + ", " +
                framework + "'s " + d.expected[d.ops[k]].toString(op.rule, plan.mesh);
    }
    return std::to_string(d.ops.size()) + " ops differ from " + framework + "'s " + d.pattern + " layout on " +
           plan.mesh.toString() + ": " + list + (d.ops.size() > 5 ? "; ..." : "");
}

} // namespace shardscope
