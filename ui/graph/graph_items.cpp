#include "graph_items.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace shardscope::ui {

namespace {

/// Zoom below which text is not drawn (it would be unreadable and slow).
constexpr double kTextDetail = 0.45;
/// Zoom below which badges are not drawn.
constexpr double kBadgeDetail = 0.7;

QFont smallFont(int pixelSize, bool bold = false) {
    QFont f;
    f.setPixelSize(pixelSize);
    f.setBold(bold);
    return f;
}

} // namespace

NodeItem::NodeItem(int index, QSizeF size) : index_(index), size_(size) {
    setFlag(ItemIsSelectable, false);
    setAcceptHoverEvents(false);
    setCacheMode(DeviceCoordinateCache);
}

void NodeItem::setLook(const NodeLook& look) {
    look_ = look;
    setToolTip(look.title + QLatin1Char('\n') + look.subtitle +
               (look.stageText.isEmpty() ? QString() : QLatin1Char('\n') + look.stageText) +
               (look.badges.isEmpty() ? QString() : QLatin1Char('\n') + look.badges.join(QStringLiteral(", "))));
    update();
}

void NodeItem::setHighlighted(bool on) {
    if (on == highlighted_)
        return;
    highlighted_ = on;
    update();
}

QRectF NodeItem::boundingRect() const {
    return QRectF(-size_.width() / 2 - 4, -size_.height() / 2 - 4, size_.width() + 8, size_.height() + 8);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF box(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height());
    QPen border(look_.locked ? QColor(30, 30, 30) : QColor(120, 120, 120), look_.locked ? 2.5 : 1);
    if (look_.stack)
        border.setStyle(Qt::DashLine);
    painter->setPen(border);
    painter->setBrush(look_.fill);
    painter->drawRoundedRect(box, 6, 6);
    if (!look_.stages.isEmpty()) {
        // Pipeline stages: a band along the top, one segment per block of a stack, seen at any zoom.
        const QRectF band(box.left() + 5, box.top() + 1.5, box.width() - 10, 5);
        const double w = band.width() / look_.stages.size();
        painter->setPen(Qt::NoPen);
        for (int i = 0; i < look_.stages.size(); ++i) {
            painter->setBrush(look_.stages[i]);
            painter->drawRect(QRectF(band.left() + i * w, band.top(), w + 0.3, band.height()));
        }
    }
    if (look_.undecided) {
        // Hatched: nothing has decided this op yet; it runs replicated.
        painter->setBrush(QBrush(QColor(150, 150, 160), Qt::BDiagPattern));
        painter->setPen(QPen(QColor(120, 120, 130), 1.2, Qt::DotLine));
        painter->drawRoundedRect(box, 6, 6);
    }
    if (highlighted_) {
        painter->setPen(QPen(QColor(0, 110, 230), 3));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(box.adjusted(-3, -3, 3, 3), 8, 8);
    }
    if (detail < kTextDetail)
        return;
    if (!look_.strip.isEmpty()) {
        // The stack's colours, one stripe per op of a block.
        const QRectF strip(box.left() + 8, box.bottom() - 14, box.width() - 16, 7);
        const double w = strip.width() / look_.strip.size();
        painter->setPen(Qt::NoPen);
        for (int i = 0; i < look_.strip.size(); ++i) {
            painter->setBrush(look_.strip[i]);
            painter->drawRect(QRectF(strip.left() + i * w, strip.top(), w, strip.height()));
        }
    }
    painter->setPen(Qt::black);
    painter->setFont(smallFont(11, true));
    const QRectF text = box.adjusted(6, 3, -6, -3);
    painter->drawText(text, Qt::AlignTop | Qt::AlignHCenter,
                      painter->fontMetrics().elidedText(look_.title, Qt::ElideMiddle, int(text.width())));
    painter->setFont(smallFont(10));
    painter->drawText(text.adjusted(0, 14, 0, 0), Qt::AlignTop | Qt::AlignHCenter,
                      painter->fontMetrics().elidedText(look_.subtitle, Qt::ElideRight, int(text.width())));
    if (look_.locked)
        painter->drawText(text, Qt::AlignTop | Qt::AlignRight, QStringLiteral("L"));
    if (detail < kBadgeDetail || look_.badges.isEmpty())
        return;
    // Badges in a row along the bottom edge.
    painter->setFont(smallFont(9, true));
    double x = box.left() + 6;
    const double y = box.bottom() - (look_.stack ? 30 : 17);
    for (const QString& badge : look_.badges) {
        const double w = painter->fontMetrics().horizontalAdvance(badge) + 8;
        if (x + w > box.right() - 4)
            break;
        const QRectF pill(x, y, w, 13);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(40, 40, 60));
        painter->drawRoundedRect(pill, 6, 6);
        painter->setPen(Qt::white);
        painter->drawText(pill, Qt::AlignCenter, badge);
        x += w + 3;
    }
}

EdgeItem::EdgeItem(const QPainterPath& path) : QGraphicsPathItem(path) {
    setZValue(-1);
    setCacheMode(DeviceCoordinateCache);
}

void EdgeItem::setLook(double width, const QColor& color, bool dashed, const QString& badge) {
    QPen pen(color, width);
    pen.setCapStyle(Qt::FlatCap);
    if (dashed)
        pen.setStyle(Qt::DashLine);
    prepareGeometryChange();
    setPen(pen);
    badge_ = badge;
    const QPointF at = path().pointAtPercent(0.5);
    const double w = QFontMetricsF(smallFont(9, true)).horizontalAdvance(badge) + 8;
    badgeRect_ = badge.isEmpty() ? QRectF() : QRectF(at.x() + 4, at.y() - 7, w, 14);
    setToolTip(badge);
    update();
}

QRectF EdgeItem::boundingRect() const {
    const double margin = 6 + pen().widthF() * 2;
    return QGraphicsPathItem::boundingRect().adjusted(-margin, -margin, margin, margin).united(badgeRect_);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    painter->setPen(pen());
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    // Arrowhead at the end of the path.
    const QPainterPath& p = path();
    if (p.elementCount() >= 2) {
        const QPointF tip = p.pointAtPercent(1.0);
        const QPointF back = p.pointAtPercent(std::max(0.0, 1.0 - 8.0 / std::max(8.0, p.length())));
        const QPointF d = tip - back;
        const double len = std::hypot(d.x(), d.y());
        if (len > 0) {
            const QPointF u = d / len, n(-u.y(), u.x());
            const double s = 4 + pen().widthF();
            QPolygonF head;
            head << tip << tip - u * s * 1.6 + n * s * 0.7 << tip - u * s * 1.6 - n * s * 0.7;
            painter->setPen(Qt::NoPen);
            painter->setBrush(pen().color());
            painter->drawPolygon(head);
        }
    }
    if (badge_.isEmpty() || option->levelOfDetailFromTransform(painter->worldTransform()) < kBadgeDetail)
        return;
    painter->setFont(smallFont(9, true));
    painter->setPen(QPen(QColor(150, 60, 20), 1));
    painter->setBrush(QColor(255, 240, 225));
    painter->drawRoundedRect(badgeRect_, 6, 6);
    painter->setPen(QColor(120, 40, 0));
    painter->drawText(badgeRect_, Qt::AlignCenter, badge_);
}

} // namespace shardscope::ui
