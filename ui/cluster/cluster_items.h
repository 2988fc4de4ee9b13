#pragma once
// What the cluster view draws: every node and device in one item (thousands of devices stay cheap
// to build and to paint), and one item per link whose tooltip is written when hovered.

#include "cluster_layout.h"

#include <QGraphicsItem>
#include <QGraphicsPathItem>

#include <functional>
#include <vector>

namespace shardscope::ui {

/// Node boxes with their labels and device boxes with their ids, coloured per device.
class ClusterGridItem final : public QGraphicsItem {
public:
    /// The boxes of `geometry`; `describe(d)` gives device d's tooltip.
    ClusterGridItem(ClusterGeometry geometry, std::function<QString(int)> describe);
    /// Fills device d with `colors[d]` (white when the list is empty).
    void setDeviceColors(std::vector<QColor> colors);

    /// The whole cluster.
    QRectF boundingRect() const final;
    /// Paints nodes and devices; ids and labels only when they are readable.
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) final;

protected:
    /// Names the device under the cursor.
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) final;

private:
    ClusterGeometry geometry_;
    std::function<QString(int)> describe_;
    std::vector<QColor> colors_;
};

/// A link between two endpoints; its tooltip is made when the cursor first rests on it.
class LinkItem final : public QGraphicsPathItem {
public:
    /// A link along `path`; `describe()` writes its tooltip.
    LinkItem(const QPainterPath& path, std::function<QString()> describe);

protected:
    /// Writes the tooltip.
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) final;

private:
    std::function<QString()> describe_;
};

} // namespace shardscope::ui
