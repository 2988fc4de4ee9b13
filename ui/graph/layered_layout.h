#pragma once
// A layered drawing for graphs too large for Graphviz dot (which takes about a second per thousand
// nodes and cannot be stopped): linear in nodes and edges apart from one sort per layer, and
// stoppable. The geometry follows layoutGraph()'s contract (graph_layout.h).

#include "graph_layout.h"

#include <cstddef>
#include <stop_token>

namespace shardscope::ui {

/// Graphs with more nodes than this are drawn by layoutLayered() instead of Graphviz dot.
inline constexpr std::size_t kDotNodeLimit = 3000;

/// Lays out `request` top to bottom: each node on the layer of its longest path from a source, then
/// pulled down to just above its highest consumer; ordered in its layer by the median position of
/// its predecessors; edges as cubic curves from the tail's bottom to the head's top. A stop request
/// ends it early with an incomplete result, which callers drop.
LayoutResult layoutLayered(const LayoutRequest& request, const std::stop_token& stop = {});

/// Lays out `request` with Graphviz dot up to kDotNodeLimit nodes, with layoutLayered() beyond.
LayoutResult layoutAnySize(const LayoutRequest& request, const std::stop_token& stop = {});

} // namespace shardscope::ui
