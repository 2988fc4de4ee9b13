#include "zoom_view.h"

#include "graph_items.h"

#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>

namespace shardscope::ui {

namespace {
constexpr double kMinScale = 0.005;
constexpr double kMaxScale = 8.0;
} // namespace

ZoomView::ZoomView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
    setDragMode(ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setViewportUpdateMode(SmartViewportUpdate);
    setOptimizationFlags(DontSavePainterState | DontAdjustForAntialiasing);
    setTransformationAnchor(AnchorUnderMouse);
    setBackgroundBrush(QColor(250, 250, 252));
}

void ZoomView::zoomBy(double factor) {
    const double now = transform().m11();
    const double next = std::clamp(now * factor, kMinScale, kMaxScale);
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    scale(next / now, next / now);
    setTransformationAnchor(anchor);
}

void ZoomView::fitAll() {
    const QRectF r = sceneRect();
    if (r.isEmpty())
        return;
    resetTransform();
    if (r.height() > 4 * r.width() * viewport()->height() / std::max(1, viewport()->width())) {
        // A long chain: fit the width and show the top.
        const double s = std::clamp(viewport()->width() / (r.width() + 20), kMinScale, kMaxScale);
        scale(s, s);
        centerOn(r.center().x(), r.top() + viewport()->height() / (2 * s));
    } else {
        fitInView(r.adjusted(-10, -10, 10, 10), Qt::KeepAspectRatio);
    }
}

void ZoomView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    const double now = transform().m11();
    const double next = std::clamp(now * std::pow(1.2, steps), kMinScale, kMaxScale);
    scale(next / now, next / now); // anchored under the mouse
    event->accept();
}

int ZoomView::nodeAt(const QPoint& pos) const {
    for (QGraphicsItem* item : items(pos))
        if (const auto* node = dynamic_cast<const NodeItem*>(item))
            return node->index();
    return -1;
}

void ZoomView::mousePressEvent(QMouseEvent* event) {
    const int node = event->button() == Qt::LeftButton ? nodeAt(event->pos()) : -1;
    if (node >= 0) {
        emit nodeClicked(node);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void ZoomView::mouseDoubleClickEvent(QMouseEvent* event) {
    const int node = nodeAt(event->pos());
    if (node >= 0) {
        emit nodeActivated(node);
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

} // namespace shardscope::ui
