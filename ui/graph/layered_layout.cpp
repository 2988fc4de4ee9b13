// Layered layout without Graphviz (layered_layout.h): Sugiyama's scheme in one sweep — layers
// from longest paths, order in a layer by the median of the predecessors' positions, packing left
// to right.

#include "layered_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardscope::ui {

namespace {

constexpr double kPointsPerInch = 72;
/// How many nodes the passes handle between two looks at the stop request.
constexpr std::size_t kStopInterval = 4096;

struct Adjacency {
    std::vector<std::vector<int>> successors;
    std::vector<std::vector<int>> predecessors;
};

Adjacency adjacencyOf(const LayoutRequest& request) {
    Adjacency a;
    a.successors.resize(request.nodes.size());
    a.predecessors.resize(request.nodes.size());
    for (const LayoutEdge& e : request.edges) {
        a.successors[std::size_t(e.from)].push_back(e.to);
        a.predecessors[std::size_t(e.to)].push_back(e.from);
    }
    return a;
}

/// The nodes in dependency order (Kahn); nodes on a cycle follow in index order.
std::vector<int> dependencyOrder(const Adjacency& a) {
    const std::size_t n = a.successors.size();
    std::vector<std::size_t> waiting(n);
    std::vector<int> order;
    order.reserve(n);
    for (std::size_t v = 0; v < n; ++v) {
        waiting[v] = a.predecessors[v].size();
        if (waiting[v] == 0)
            order.push_back(int(v));
    }
    for (std::size_t head = 0; head < order.size(); ++head)
        for (int s : a.successors[std::size_t(order[head])])
            if (--waiting[std::size_t(s)] == 0)
                order.push_back(s);
    if (order.size() < n) {
        std::vector<bool> placed(n, false);
        for (int v : order)
            placed[std::size_t(v)] = true;
        for (std::size_t v = 0; v < n; ++v)
            if (!placed[v])
                order.push_back(int(v));
    }
    return order;
}

/// The layer of each node: one below its deepest predecessor, then moved down to just above its
/// highest successor (so a weight-like source sits by its consumer, not at the top). Edges that
/// close a cycle are ignored.
std::vector<int> layersOf(const Adjacency& a, const std::vector<int>& order) {
    const std::size_t n = order.size();
    std::vector<std::size_t> position(n);
    for (std::size_t i = 0; i < n; ++i)
        position[std::size_t(order[i])] = i;
    std::vector<int> layer(n, 0);
    for (int v : order)
        for (int u : a.predecessors[std::size_t(v)])
            if (position[std::size_t(u)] < position[std::size_t(v)])
                layer[std::size_t(v)] = std::max(layer[std::size_t(v)], layer[std::size_t(u)] + 1);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::size_t v = std::size_t(*it);
        int highest = std::numeric_limits<int>::max();
        for (int s : a.successors[v])
            if (position[std::size_t(s)] > position[v])
                highest = std::min(highest, layer[std::size_t(s)]);
        if (highest != std::numeric_limits<int>::max())
            layer[v] = std::max(layer[v], highest - 1);
    }
    return layer;
}

/// The lower median of the centres of `v`'s predecessors placed so far, or infinity if none is.
double medianOfPlaced(const std::vector<int>& predecessors, const std::vector<double>& x, const std::vector<bool>& placed) {
    std::vector<double> xs;
    for (int u : predecessors)
        if (placed[std::size_t(u)])
            xs.push_back(x[std::size_t(u)]);
    if (xs.empty())
        return std::numeric_limits<double>::infinity();
    const std::size_t mid = (xs.size() - 1) / 2;
    std::nth_element(xs.begin(), xs.begin() + std::ptrdiff_t(mid), xs.end());
    return xs[mid];
}

} // namespace

LayoutResult layoutLayered(const LayoutRequest& request, const std::stop_token& stop) {
    const std::size_t n = request.nodes.size();
    const Adjacency a = adjacencyOf(request);
    const std::vector<int> order = dependencyOrder(a);
    const std::vector<int> layer = layersOf(a, order);
    const int layerCount = n == 0 ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
    std::vector<std::vector<int>> members(static_cast<std::size_t>(layerCount));
    for (int v : order)
        members[std::size_t(layer[std::size_t(v)])].push_back(v);

    const double nodeGap = request.nodeSeparation * kPointsPerInch;
    const double layerGap = request.rankSeparation * kPointsPerInch;
    std::vector<double> x(n, 0), y(n, 0);
    std::vector<bool> placed(n, false);
    double top = 0, left = std::numeric_limits<double>::infinity(), right = -left;
    std::size_t done = 0;
    for (std::vector<int>& row : members) {
        std::vector<std::pair<double, int>> keyed;
        keyed.reserve(row.size());
        double rowHeight = 0;
        for (int v : row) {
            keyed.push_back({medianOfPlaced(a.predecessors[std::size_t(v)], x, placed), v});
            rowHeight = std::max(rowHeight, request.nodes[std::size_t(v)].height);
        }
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
        double edge = -std::numeric_limits<double>::infinity();
        for (const auto& [want, v] : keyed) {
            const double width = request.nodes[std::size_t(v)].width;
            double centre = std::isinf(want) ? edge + width / 2 : std::max(want, edge + width / 2);
            if (std::isinf(centre))
                centre = width / 2;
            x[std::size_t(v)] = centre;
            y[std::size_t(v)] = top + rowHeight / 2;
            placed[std::size_t(v)] = true;
            edge = centre + width / 2 + nodeGap;
            left = std::min(left, centre - width / 2);
            right = std::max(right, centre + width / 2);
            if (++done % kStopInterval == 0 && stop.stop_requested())
                return {};
        }
        top += rowHeight + layerGap;
    }

    LayoutResult out;
    if (n == 0)
        return out;
    out.width = right - left;
    out.height = top - layerGap;
    out.centers.reserve(n);
    for (std::size_t v = 0; v < n; ++v)
        out.centers.push_back(LayoutPoint{x[v] - left, y[v]});
    out.edgePaths.reserve(request.edges.size());
    for (const LayoutEdge& e : request.edges) {
        const LayoutPoint& from = out.centers[std::size_t(e.from)];
        const LayoutPoint& to = out.centers[std::size_t(e.to)];
        const LayoutPoint tail{from.x, from.y + request.nodes[std::size_t(e.from)].height / 2};
        const LayoutPoint head{to.x, to.y - request.nodes[std::size_t(e.to)].height / 2};
        const double bend = (head.y - tail.y) / 2;
        out.edgePaths.push_back({tail, {tail.x, tail.y + bend}, {head.x, head.y - bend}, head});
    }
    return out;
}

LayoutResult layoutAnySize(const LayoutRequest& request, const std::stop_token& stop) {
    return request.nodes.size() > kDotNodeLimit ? layoutLayered(request, stop) : layoutGraph(request);
}

} // namespace shardscope::ui
