#include "display_graph.h"

#include <map>

namespace shardscope::ui {

DisplayGraph buildDisplayGraph(const Graph& graph, const std::vector<Edge>& edges, const RepeatedBlocks* blocks) {
    DisplayGraph d;
    d.nodeOfOp.assign(graph.ops().size(), -1);
    for (OpId o : graph.topoOrder()) {
        const bool inStack = blocks && blocks->blockOf[o.index()] >= 0;
        if (inStack && d.stackNode >= 0) {
            d.nodeOfOp[o.index()] = d.stackNode;
            continue;
        }
        DisplayNode node;
        node.op = o;
        if (inStack) {
            node.stack = true;
            for (const auto& block : blocks->blocks)
                node.members.insert(node.members.end(), block.begin(), block.end());
            d.stackNode = static_cast<int>(d.nodes.size());
            d.blocks = blocks->count();
            d.opsPerBlock = blocks->period();
        } else {
            node.members = {o};
        }
        d.nodeOfOp[o.index()] = static_cast<int>(d.nodes.size());
        d.nodes.push_back(std::move(node));
    }
    std::map<std::pair<int, int>, std::size_t> byEnds;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const int from = d.nodeOfOp[edges[i].from.index()];
        const int to = d.nodeOfOp[edges[i].to.index()];
        if (from == to)
            continue;
        auto [it, added] = byEnds.emplace(std::make_pair(from, to), d.edges.size());
        if (added)
            d.edges.push_back(DisplayEdge{from, to, {}, true});
        DisplayEdge& e = d.edges[it->second];
        e.edges.push_back(i);
        e.parameterShare = e.parameterShare && edges[i].parameterShare;
    }
    return d;
}

} // namespace shardscope::ui
