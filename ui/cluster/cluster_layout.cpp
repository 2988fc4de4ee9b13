#include "cluster_layout.h"

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {
constexpr double kDevice = 38, kDeviceHeight = 28, kGap = 6, kPad = 10, kLabel = 18, kNodeGap = 34;
} // namespace

ClusterGeometry layoutCluster(int devices, int perNode, double aspect) {
    ClusterGeometry g;
    perNode = std::max(1, std::min(perNode, std::max(1, devices)));
    g.perNode = perNode;
    const int nodes = (devices + perNode - 1) / perNode;
    // Devices of a node in rows of up to four.
    const int across = std::min(perNode, 4);
    const int down = (perNode + across - 1) / across;
    const double nodeW = 2 * kPad + across * kDevice + (across - 1) * kGap;
    const double nodeH = kLabel + kPad + down * kDeviceHeight + (down - 1) * kGap;
    const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(nodes * aspect * nodeH / nodeW))));
    for (int n = 0; n < nodes; ++n) {
        const double x = (n % columns) * (nodeW + kNodeGap), y = (n / columns) * (nodeH + kNodeGap);
        g.nodes.emplace_back(x, y, nodeW, nodeH);
        for (int k = 0; k < perNode && n * perNode + k < devices; ++k)
            g.devices.emplace_back(x + kPad + (k % across) * (kDevice + kGap),
                                   y + kLabel + (k / across) * (kDeviceHeight + kGap), kDevice, kDeviceHeight);
    }
    const int rows = (nodes + columns - 1) / columns;
    g.size = QSizeF(std::min(nodes, columns) * (nodeW + kNodeGap) - kNodeGap, rows * (nodeH + kNodeGap) - kNodeGap);
    return g;
}

QPointF ClusterGeometry::endpoint(int level, int endpoint, int span) const {
    if (level == 0)
        return devices[static_cast<std::size_t>(endpoint)].center();
    QRectF all;
    for (int n = endpoint * span; n < (endpoint + 1) * span && n < static_cast<int>(nodes.size()); ++n)
        all = all.united(nodes[static_cast<std::size_t>(n)]);
    return all.center();
}

} // namespace shardscope::ui
