#include "cluster_items.h"

#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace shardscope::ui {

ClusterGridItem::ClusterGridItem(ClusterGeometry geometry, std::function<QString(int)> describe)
    : geometry_(std::move(geometry)), describe_(std::move(describe)) {
    setAcceptHoverEvents(true);
}

void ClusterGridItem::setDeviceColors(std::vector<QColor> colors) {
    colors_ = std::move(colors);
    update();
}

QRectF ClusterGridItem::boundingRect() const { return QRectF(QPointF(0, 0), geometry_.size).adjusted(-2, -2, 2, 2); }

void ClusterGridItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF visible = option->exposedRect;
    QFont font;
    font.setPixelSize(10);
    painter->setFont(font);
    for (std::size_t n = 0; n < geometry_.nodes.size(); ++n) {
        const QRectF& box = geometry_.nodes[n];
        if (!box.intersects(visible))
            continue;
        painter->setPen(QPen(QColor(120, 125, 140), 1.2));
        painter->setBrush(QColor(236, 239, 245));
        painter->drawRect(box);
        if (detail > 0.3) {
            painter->setPen(QColor(40, 40, 60));
            painter->drawText(box.topLeft() + QPointF(8, 13), QStringLiteral("node %1").arg(n));
        }
    }
    for (std::size_t d = 0; d < geometry_.devices.size(); ++d) {
        const QRectF& box = geometry_.devices[d];
        if (!box.intersects(visible))
            continue;
        painter->setPen(QPen(QColor(90, 90, 100), 1));
        painter->setBrush(d < colors_.size() ? colors_[d] : QColor(250, 250, 250));
        painter->drawRect(box);
        if (detail > 0.45) {
            painter->setPen(Qt::black);
            painter->drawText(box.topLeft() + QPointF(3, 12), QString::number(d));
        }
    }
}

void ClusterGridItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
    for (std::size_t d = 0; d < geometry_.devices.size(); ++d)
        if (geometry_.devices[d].contains(event->pos())) {
            setToolTip(describe_(static_cast<int>(d)));
            return;
        }
    setToolTip({});
}

LinkItem::LinkItem(const QPainterPath& path, std::function<QString()> describe)
    : QGraphicsPathItem(path), describe_(std::move(describe)) {
    setAcceptHoverEvents(true);
}

void LinkItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event) {
    if (toolTip().isEmpty())
        setToolTip(describe_());
    QGraphicsPathItem::hoverEnterEvent(event);
}

} // namespace shardscope::ui
