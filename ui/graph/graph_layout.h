#pragma once
// Graph layout behind one small interface (docs/DESIGN.md, The window): plain geometry in and out, no Graphviz or Qt
// types. Graphviz is not reentrant, so layoutGraph() serialises its calls; the UI calls it from one
// job on its JobRunner (graph_view.cpp), never from the UI thread.

#include <string>
#include <vector>

namespace shardscope::ui {

/// A point in layout coordinates: points (1/72 inch), y growing downwards.
struct LayoutPoint {
    double x = 0;
    double y = 0;
};

/// A node to place: its size in points.
struct LayoutNode {
    double width = 0;
    double height = 0;
};

/// An edge between two nodes (indices into LayoutRequest::nodes).
struct LayoutEdge {
    int from = 0;
    int to = 0;
};

/// What to lay out, top to bottom in dependency order.
struct LayoutRequest {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    double rankSeparation = 0.35;  ///< inches between ranks
    double nodeSeparation = 0.25;  ///< inches between nodes of one rank
};

/// Where everything went.
struct LayoutResult {
    std::vector<LayoutPoint> centers;                 ///< per node
    std::vector<std::vector<LayoutPoint>> edgePaths;  ///< per edge: cubic Bezier, 1 + 3k points, from tail to head
    double width = 0;
    double height = 0;
};

/// Lays out `request` with Graphviz `dot`. Safe to call from any thread (calls are serialised).
/// Throws std::runtime_error if Graphviz fails.
LayoutResult layoutGraph(const LayoutRequest& request);

} // namespace shardscope::ui
