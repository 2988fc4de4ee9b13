#pragma once
// The graph as drawn: one node per op, except that the repeated blocks (layers) may be collapsed
// into one "x L" stack node that expands on demand. Plain C++ over the engine's graph.

#include "engine/cost/cost_terms.h"
#include "engine/ir/repeated_blocks.h"

#include <string>
#include <vector>

namespace shardscope::ui {

/// A drawn node: one op, or the collapsed stack of repeated blocks.
struct DisplayNode {
    OpId op;                        ///< the op; for the stack, the first op of its first block
    bool stack = false;
    std::vector<OpId> members;      ///< the stack's ops, block by block; {op} otherwise
};

/// A drawn edge: the model edges between two drawn nodes.
struct DisplayEdge {
    int from = 0;
    int to = 0;
    std::vector<std::size_t> edges; ///< indices into graphEdges() (and Evaluation::perEdge)
    bool parameterShare = false;    ///< only tied-parameter edges
};

/// Nodes in topological order of their first op, and edges between distinct nodes.
struct DisplayGraph {
    std::vector<DisplayNode> nodes;
    std::vector<DisplayEdge> edges;
    std::vector<int> nodeOfOp;      ///< per op
    int stackNode = -1;             ///< the collapsed stack, or -1
    int blocks = 0;                 ///< blocks in the stack
    int opsPerBlock = 0;
};

/// The drawn graph of `graph` with edges `edges` (graphEdges order). With `blocks`, their ops are
/// collapsed into one stack node; without, every op is its own node.
DisplayGraph buildDisplayGraph(const Graph& graph, const std::vector<Edge>& edges, const RepeatedBlocks* blocks);

} // namespace shardscope::ui
