#include "engine/export/layout_match.h"

#include "engine/plans/baselines.h"

namespace shardscope {

std::optional<std::string> axisWithoutDegree(const Mesh& mesh) {
    for (const MeshAxis& a : mesh.axes)
        if (a.name != "pipe" && a.name != "data" && a.name != "model")
            return a.name;
    return std::nullopt;
}

int degreeOf(const Mesh& mesh, const std::string& name) { return mesh.find(name) ? mesh.size(*mesh.find(name)) : 1; }

LayoutDifference layoutDifference(const Graph& graph, const Plan& plan, const std::string& pattern) {
    LayoutDifference d;
    d.pattern = pattern;
    d.expected = baselinePlan(graph, plan.mesh, pattern, plan.settings, nullptr,
                              plan.pipeline.active() ? &plan.pipeline : nullptr)
                     .strategies;
    for (std::size_t o = 0; o < plan.strategies.size(); ++o)
        if (!(plan.strategies[o] == d.expected[o]))
            d.ops.push_back(o);
    return d;
}

std::string describeDifference(const Graph& graph, const Plan& plan, const LayoutDifference& d,
                               const std::string& framework) {
    std::string list;
    for (std::size_t k = 0; k < d.ops.size() && k < 5; ++k) {
        const Op& op = graph.ops()[d.ops[k]];
        list += (k ? "; " : "") + op.name + " is " + plan.strategies[d.ops[k]].toString(op.rule, plan.mesh) + ", " +
                framework + "'s " + d.expected[d.ops[k]].toString(op.rule, plan.mesh);
    }
    return std::to_string(d.ops.size()) + " ops differ from " + framework + "'s " + d.pattern + " layout on " +
           plan.mesh.toString() + ": " + list + (d.ops.size() > 5 ? "; ..." : "");
}

} // namespace shardscope
