#pragma once
// Where the cluster view puts nodes and devices: nodes in a grid, each holding its devices in a
// grid. Plain geometry, tested on its own.

#include <QPointF>
#include <QRectF>

#include <vector>

namespace shardscope::ui {

/// Boxes of every node and device, in scene coordinates.
struct ClusterGeometry {
    std::vector<QRectF> nodes;     ///< per node
    std::vector<QRectF> devices;   ///< per device
    QSizeF size;
    int perNode = 1;

    /// The centre of endpoint `endpoint` of link level `level`: a device at level 0; above, the
    /// middle of the nodes it spans (`span` nodes per endpoint).
    QPointF endpoint(int level, int endpoint, int span) const;
};

/// Lays out `devices` devices, `perNode` per node, nodes in rows about `aspect` times wider than tall.
ClusterGeometry layoutCluster(int devices, int perNode, double aspect = 2.0);

} // namespace shardscope::ui
