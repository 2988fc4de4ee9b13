// The timeline's drawing: ruler, lanes (bucketed spans, schedule units), memory strip. Input and
// layout live in timeline_view.cpp.

#include "timeline_view.h"

#include "timeline_metrics.h"

#include "graph/palette.h"
#include "util/qt_text.h"

#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <map>

namespace shardscope::ui {

namespace {

QString laneName(Lane lane) {
    return lane == Lane::Schedule ? QStringLiteral("schedule") : q(streamName(static_cast<Stream>(streamIndex(lane))));
}

/// ", stage 3" (or ", stages 2-3") for node `node` of a pipelined plan; empty without pipelining.
QString stageText(const TimelineData* data, int node) {
    if (!data || data->devicesPerStage <= 0)
        return {};
    const int first = node * data->devicesPerNode / data->devicesPerStage;
    const int last = ((node + 1) * data->devicesPerNode - 1) / data->devicesPerStage;
    return first == last ? QStringLiteral(", stage %1").arg(first) : QStringLiteral(", stages %1-%2").arg(first).arg(last);
}

} // namespace

void TimelineView::render(QPainter& p, const QSize& size) const {
    p.fillRect(QRect(QPoint(0, 0), size), QColor(252, 252, 253));
    if (!data_) {
        p.setPen(Qt::darkGray);
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
                   session_->loaded() ? tr("Simulating the step...") : tr("Open a model to see its timeline."));
        return;
    }
    paintLanes(p, size);
    paintRuler(p, size);
    paintMemory(p, size);
}

void TimelineView::paintRuler(QPainter& p, const QSize& size) const {
    p.fillRect(QRectF(0, 0, size.width(), kRuler), QColor(238, 240, 244));
    p.setPen(QColor(90, 90, 100));
    QFont f = p.font();
    f.setPixelSize(10);
    p.setFont(f);
    p.drawText(QRectF(6, 0, kGutter - 8, kRuler), Qt::AlignVCenter | Qt::AlignLeft,
                tr("step %1").arg(seconds(data_->sim->stepTime)));
    double step = 0;
    for (double t : axis_.ticks(size.width() - kGutter, 90, step)) {
        const double x = kGutter + axis_.x(t);
        p.setPen(QColor(150, 150, 160));
        p.drawLine(QPointF(x, kRuler - 6), QPointF(x, kRuler));
        p.setPen(QColor(60, 60, 70));
        p.drawText(QPointF(x + 3, kRuler - 8), seconds(t));
    }
}

void TimelineView::paintLanes(QPainter& p, const QSize& size) const {
    const double top = laneTop(), bottom = std::max(top, size.height() - kMemory);
    const double scroll = verticalScrollBar()->value();
    const double width = size.width() - kGutter;
    const auto selected = session_->selectedOp();
    QFont f = p.font();
    f.setPixelSize(10);
    p.setFont(f);
    int first = std::max(0, rows_.rowAt(scroll));
    const auto& rows = rows_.rows();
    // On screen, devices of one class share their lanes' pictures; a vector export (SVG) draws
    // every lane, so its text stays text.
    const bool raster = p.paintEngine()->type() != QPaintEngine::SVG;
    std::map<std::pair<int, Lane>, QImage> strips;
    for (std::size_t i = static_cast<std::size_t>(first); i < rows.size(); ++i) {
        const TimelineRow& row = rows[i];
        const double y = top + row.y - scroll;
        if (y >= bottom)
            break;
        const double h = std::min(row.height, bottom - y);
        if (row.device < 0) {
            p.fillRect(QRectF(0, y, size.width(), h), QColor(226, 230, 238));
            p.setPen(QColor(40, 40, 60));
            const bool folded = static_cast<std::size_t>(row.node) < folded_.size() && folded_[static_cast<std::size_t>(row.node)];
            p.drawText(QRectF(6, y, kGutter - 8, h), Qt::AlignVCenter,
                       tr("%1 node %2").arg(folded ? QStringLiteral("+") : QStringLiteral("-")).arg(row.node) +
                           stageText(data_.get(), row.node));
            if (folded && data_->pipelined()) {
                // A folded node of a pipeline: its first device's schedule in the header.
                const int first = row.node * data_->devicesPerNode;
                p.save();
                p.setClipRect(QRectF(kGutter, y, width, h));
                p.translate(kGutter, 0);
                paintUnits(p, first, bucketLane(data_->laneSpans(first, Lane::Schedule), axis_, width), y + 2, h - 4);
                p.restore();
            }
            continue;
        }
        if (row.device == device_)
            p.fillRect(QRectF(0, y, size.width(), h), QColor(255, 248, 225));
        p.setPen(QColor(70, 70, 80));
        p.drawText(QRectF(14, y, kGutter - 16, h), Qt::AlignVCenter,
                   tr("rank %1 %2").arg(row.device % data_->devicesPerNode).arg(laneName(row.lane)));
        const ClassLanes& lanes = data_->lanes(row.device);
        const auto& spans = data_->laneSpans(row.device, row.lane);
        p.save();
        p.setClipRect(QRectF(kGutter, y, width, h));
        p.translate(kGutter, 0);
        const int cls = data_->sim->classOfDevice[static_cast<std::size_t>(row.device)];
        if (raster) {
            // One picture per (class, stream) lane, drawn once and copied to every device of the class.
            auto strip = strips.find({cls, row.lane});
            if (strip == strips.end()) {
                QImage image(QSize(static_cast<int>(width), static_cast<int>(kLane - 3)), QImage::Format_ARGB32_Premultiplied);
                image.fill(Qt::transparent);
                QPainter ip(&image);
                ip.setFont(f);
                paintSpans(ip, row.device, row.lane, bucketLane(spans, axis_, width), 0, kLane - 3);
                strip = strips.emplace(std::make_pair(cls, row.lane), std::move(image)).first;
            }
            p.drawImage(QPointF(0, y + 1.5), strip->second);
        } else {
            paintSpans(p, row.device, row.lane, bucketLane(spans, axis_, width), y + 1.5, h - 3);
        }
        if (selected && row.lane != Lane::Schedule) {
            const auto it = lanes.spansOfOp[streamIndex(row.lane)].find(selected->value);
            if (it != lanes.spansOfOp[streamIndex(row.lane)].end()) {
                p.setPen(QPen(QColor(10, 10, 10), 2));
                p.setBrush(Qt::NoBrush);
                const double t0 = axis_.time(0), t1 = axis_.time(width);
                const auto& list = it->second;
                auto from = std::lower_bound(list.begin(), list.end(), t0,
                                             [&spans](std::size_t k, double t) { return spans[k].end < t; });
                for (auto k = from; k != list.end() && spans[*k].start < t1; ++k) {
                    const double x0 = axis_.x(spans[*k].start), x1 = axis_.x(spans[*k].end);
                    p.drawRect(QRectF(x0 - 1, y + 0.5, std::max(2.0, x1 - x0 + 2), h - 1));
                }
            }
        }
        p.restore();
    }
    p.setPen(QColor(210, 212, 220));
    p.drawLine(QPointF(kGutter - 0.5, top), QPointF(kGutter - 0.5, bottom));
}

void TimelineView::paintSpans(QPainter& p, int device, Lane lane, const std::vector<Bucket>& buckets, double y,
                              double h) const {
    if (lane == Lane::Schedule) {
        paintUnits(p, device, buckets, y, h);
        return;
    }
    for (const Bucket& b : buckets) {
        const QRectF r(b.x0, y, std::max(1.0, b.x1 - b.x0), h);
        p.fillRect(r, spanColor(b.kind));
        if (b.count == 1 && r.width() > 40) {
            const SimEvent& e = data_->event(device, lane, b.first);
            p.setPen(Qt::white);
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter,
                       p.fontMetrics().elidedText(q(e.name), Qt::ElideRight, int(r.width() - 5)));
        }
    }
}

void TimelineView::paintUnits(QPainter& p, int device, const std::vector<Bucket>& buckets, double y, double h) const {
    // One block per micro-batch's forward or backward through a chunk, a light edge between
    // neighbours, its label where it fits; the gaps are the bubbles.
    const auto& units = data_->lanes(device).units;
    for (const Bucket& b : buckets) {
        const QRectF r(b.x0, y, std::max(1.0, b.x1 - b.x0), h);
        p.fillRect(r, spanColor(b.kind));
        if (r.width() >= 4) {
            p.setPen(QColor(255, 255, 255, 160));
            p.drawLine(r.topLeft(), r.bottomLeft());
        }
        const QString label = unitLabel(units[b.first], data_->virtualStages > 1);
        if (b.count == 1 && r.width() > p.fontMetrics().horizontalAdvance(label) + 4) {
            p.setPen(Qt::white);
            p.drawText(r, Qt::AlignCenter, label);
        }
    }
}

void TimelineView::paintMemory(QPainter& p, const QSize& size) const {
    const double top = size.height() - kMemory;
    p.fillRect(QRectF(0, top, size.width(), kMemory), QColor(244, 246, 250));
    p.setPen(QColor(200, 200, 210));
    p.drawLine(QPointF(0, top), QPointF(size.width(), top));
    const ClassLanes& lanes = data_->lanes(device_);
    const double peak = lanes.peak, peakTime = lanes.peakTime;
    p.setPen(QColor(60, 60, 70));
    p.drawText(QRectF(6, top + 2, kGutter - 8, kMemory - 4), Qt::AlignTop | Qt::TextWordWrap,
               tr("memory, device %1 (node %2, rank %3)")
                   .arg(device_)
                   .arg(device_ / data_->devicesPerNode)
                   .arg(device_ % data_->devicesPerNode));
    if (peak <= 0)
        return;
    const double plotTop = top + 16, plotHeight = kMemory - 22;
    auto yOf = [&](double bytes) { return plotTop + plotHeight * (1 - bytes / (peak * 1.05)); };
    const int width = static_cast<int>(size.width() - kGutter);
    const double stepEnd = axis_.x(data_->sim->stepTime);
    // The highest use within each pixel column, so a million samples cost one column per pixel;
    // drawn as one-pixel rectangles (a polygon fill or a wide pen costs tens of milliseconds here).
    const std::vector<double> maxima = columnMaxima(lanes.memory, axis_, width);
    const QColor fill(214, 222, 240), edge(70, 110, 200);
    const double floor = plotTop + plotHeight;
    p.save();
    p.setClipRect(QRectF(kGutter, top, width, kMemory));
    double previous = -1;
    for (int x = 0; x < width && x < stepEnd; ++x) {
        const double v = maxima[static_cast<std::size_t>(x)];
        if (std::isnan(v))
            continue;
        const double y = yOf(v);
        p.fillRect(QRectF(kGutter + x, y, 1, floor - y), fill);
        const double from = previous < 0 ? y : std::min(previous, y), to = previous < 0 ? y : std::max(previous, y);
        p.fillRect(QRectF(kGutter + x, from, 1, to - from + 1.2), edge);
        previous = y;
    }
    const double px = kGutter + axis_.x(peakTime);
    p.setPen(QPen(QColor(200, 30, 30), 1.5));
    p.drawLine(QPointF(px, plotTop - 2), QPointF(px, plotTop + plotHeight));
    p.setBrush(QColor(200, 30, 30));
    p.drawEllipse(QPointF(px, yOf(peak)), 3.5, 3.5);
    p.restore();
    p.setPen(QColor(160, 20, 20));
    p.drawText(QRectF(kGutter + 6, top + 1, width - 12, 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("peak %1 at %2").arg(bytes(peak), seconds(peakTime)));
}

} // namespace shardscope::ui
