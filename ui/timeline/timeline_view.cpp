#include "timeline_view.h"

#include "graph/palette.h"
#include "util/qt_text.h"

#include <QKeyEvent>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace shardscope::ui {

namespace {

constexpr double kGutter = 128;   // lane labels
constexpr double kRuler = 24;     // time axis
constexpr double kMemory = 92;    // memory strip
constexpr double kLane = 15;
constexpr double kHeader = 17;
/// Scroll bars count pixels in int: keep the whole step under this many pixels.
constexpr double kMaxPixels = 1.5e9;

QString laneName(Lane lane) {
    return lane == Lane::Compute ? QStringLiteral("compute") : lane == Lane::Comm ? QStringLiteral("comm") : QStringLiteral("schedule");
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

TimelineView::TimelineView(Session* session, QWidget* parent)
    : QAbstractScrollArea(parent), session_(session), arrange_(QThreadPool::globalInstance()) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    horizontalScrollBar()->setSingleStep(20);
    verticalScrollBar()->setSingleStep(int(kLane));
    connect(session_, &Session::simulationChanged, this, &TimelineView::onSimulation);
    connect(session_, &Session::selectionChanged, this, &TimelineView::onSelection);
    connect(session_, &Session::problemChanged, this, [this] {
        folded_.clear();
        device_ = 0;
    });
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data) {
    const bool first = !data_;
    const double before = data_ ? data_->sim->stepTime : 0;
    data_ = std::move(data);
    if (data_ && folded_.empty()) {
        // Small clusters start unfolded; large ones show the first node. Pipelines of several nodes
        // start folded: each node's header then draws its first device's schedule, one row a stage.
        const int nodes = (data_->sim->devices + data_->devicesPerNode - 1) / data_->devicesPerNode;
        const bool pipeline = data_->pipelined() && nodes > 1;
        folded_.assign(static_cast<std::size_t>(nodes), data_->sim->devices > 64 || pipeline);
        folded_[0] = pipeline;
    }
    device_ = data_ ? std::min(device_, data_->sim->devices - 1) : 0;
    rebuildRows();
    if (data_ && (first || std::abs(data_->sim->stepTime - before) > 0.5 * before))
        fitAll();
    else
        setAxis(axis_);
    viewport()->update();
}

void TimelineView::onSimulation() {
    const auto sim = session_->simulation().result();
    if (!sim) {
        arrange_.cancel();
        return;
    }
    const int perNode = session_->loaded() ? session_->state().problem->cluster->devicesPerNode() : 1;
    const Mesh& mesh = session_->state().plan.mesh;
    const int perStage = session_->loaded() && mesh.pipelineStages() > 1 ? mesh.deviceCount() / mesh.pipelineStages() : 0;
    const PipelineLayout& layout = session_->state().plan.pipeline;
    arrange_.start<std::shared_ptr<const TimelineData>>(
        tr("Arranging the timeline"),
        [sim, perNode, perStage, chunks = layout.chunkOf, V = layout.virtualStages](const JobContext&) {
            return buildTimelineData(sim, perNode, perStage, chunks, V);
        },
        [this](const std::shared_ptr<const TimelineData>& d) { setData(d); });
}

void TimelineView::rebuildRows() {
    rows_ = data_ ? TimelineRows(data_->sim->devices, data_->devicesPerNode, folded_, kLane, kHeader, data_->pipelined())
                  : TimelineRows();
    syncScrollBars();
}

double TimelineView::timeWidth() const { return std::max(1.0, viewport()->width() - kGutter); }

double TimelineView::laneTop() const { return kRuler; }

double TimelineView::laneBottom() const { return std::max(kRuler, viewport()->height() - kMemory); }

void TimelineView::setAxis(TimeAxis axis) {
    if (data_) {
        const double total = std::max(data_->sim->stepTime, 1e-9);
        axis.secondsPerPixel = std::max(axis.secondsPerPixel, total / kMaxPixels);
        axis.clamp(total, timeWidth());
    }
    axis_ = axis;
    syncScrollBars();
    viewport()->update();
}

void TimelineView::syncScrollBars() {
    syncing_ = true;
    const double total = data_ ? data_->sim->stepTime : 0;
    const int pixels = static_cast<int>(std::min(kMaxPixels, total / axis_.secondsPerPixel));
    horizontalScrollBar()->setRange(0, std::max(0, pixels - static_cast<int>(timeWidth())));
    horizontalScrollBar()->setPageStep(static_cast<int>(timeWidth()));
    horizontalScrollBar()->setValue(static_cast<int>(axis_.start / axis_.secondsPerPixel));
    const int visible = static_cast<int>(laneBottom() - laneTop());
    verticalScrollBar()->setRange(0, std::max(0, static_cast<int>(rows_.height()) - visible));
    verticalScrollBar()->setPageStep(visible);
    syncing_ = false;
}

void TimelineView::scrollContentsBy(int, int) {
    if (!syncing_) {
        axis_.start = horizontalScrollBar()->value() * axis_.secondsPerPixel;
        viewport()->update();
    }
}

void TimelineView::zoomBy(double factor, double x) {
    TimeAxis a = axis_;
    a.zoomAround(x, factor);
    setAxis(a);
}

void TimelineView::panBy(double pixels) {
    TimeAxis a = axis_;
    a.pan(pixels);
    setAxis(a);
}

void TimelineView::fitAll() {
    if (!data_)
        return;
    setAxis(TimeAxis::fit(0, data_->sim->stepTime, timeWidth()));
}

void TimelineView::selectDevice(int device) {
    if (!data_ || device < 0 || device >= data_->sim->devices)
        return;
    device_ = device;
    viewport()->update();
}

void TimelineView::toggleNode(int node) {
    if (node < 0 || static_cast<std::size_t>(node) >= folded_.size())
        return;
    folded_[static_cast<std::size_t>(node)] = !folded_[static_cast<std::size_t>(node)];
    rebuildRows();
    viewport()->update();
}

void TimelineView::onSelection() {
    viewport()->update();
    const auto op = session_->selectedOp();
    if (!data_ || !op)
        return;
    // Bring the op's first event on the selected device into view if none of it is visible.
    for (Lane lane : {Lane::Compute, Lane::Comm}) {
        const std::size_t stream = streamIndex(lane);
        const ClassLanes& lanes = data_->lanes(device_);
        const auto it = lanes.spansOfOp[stream].find(op->value);
        if (it == lanes.spansOfOp[stream].end())
            continue;
        const auto& spans = lanes.spans[stream];
        const double t0 = axis_.time(0), t1 = axis_.time(timeWidth());
        for (std::size_t i : it->second)
            if (spans[i].end > t0 && spans[i].start < t1)
                return;
        const Span& s = spans[it->second.front()];
        TimeAxis a = axis_;
        if (s.end - s.start > 0.5 * timeWidth() * a.secondsPerPixel)
            a = TimeAxis::fit(s.start, s.start + 2 * (s.end - s.start), timeWidth());
        a.start = s.start - timeWidth() * a.secondsPerPixel / 3;
        setAxis(a);
        return;
    }
}

TimelineView::Hit TimelineView::hitAt(const QPoint& pos) const {
    Hit hit;
    if (!data_ || pos.y() < laneTop() || pos.y() >= laneBottom())
        return hit;
    hit.row = rows_.rowAt(pos.y() - laneTop() + verticalScrollBar()->value());
    if (hit.row < 0 || pos.x() < kGutter)
        return hit;
    const TimelineRow& row = rows_.rows()[static_cast<std::size_t>(hit.row)];
    if (row.device < 0)
        return hit;
    const auto& spans = data_->laneSpans(row.device, row.lane);
    // Within a pixel's reach, so narrow spans can be picked too.
    const double t = axis_.time(pos.x() - kGutter);
    hit.span = spanAt(spans, t);
    for (double dx : {-1.5, 1.5})
        if (hit.span < 0)
            hit.span = spanAt(spans, t + dx * axis_.secondsPerPixel);
    return hit;
}

std::optional<QPoint> TimelineView::pointOf(int device, const SimEvent& event) const {
    if (!data_)
        return std::nullopt;
    const int row = rows_.rowOf(device, laneOf(event.stream));
    if (row < 0)
        return std::nullopt;
    const TimelineRow& r = rows_.rows()[static_cast<std::size_t>(row)];
    const double x = kGutter + axis_.x(event.start + event.duration / 2);
    const double y = laneTop() + r.y - verticalScrollBar()->value() + r.height / 2;
    if (x < kGutter || x >= viewport()->width() || y < laneTop() || y >= laneBottom())
        return std::nullopt;
    return QPoint(static_cast<int>(x), static_cast<int>(y));
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    render(p, viewport()->size());
}

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

void TimelineView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    setAxis(axis_);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) {
        QAbstractScrollArea::wheelEvent(event);
        return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.25, steps), event->position().x() - kGutter);
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    setFocus();
    if (event->button() != Qt::LeftButton)
        return;
    const Hit hit = hitAt(event->pos());
    if (hit.row >= 0) {
        const TimelineRow& row = rows_.rows()[static_cast<std::size_t>(hit.row)];
        if (row.device < 0) {
            toggleNode(row.node);
            return;
        }
        selectDevice(row.device);
        if (hit.span >= 0 && row.lane != Lane::Schedule) {
            const SimEvent& e = data_->event(row.device, row.lane, static_cast<std::size_t>(hit.span));
            if (e.op.valid())
                session_->selectOp(e.op);
        }
    }
    dragging_ = true;
    dragFrom_ = event->pos();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (dragging_ && (event->buttons() & Qt::LeftButton)) {
        const QPoint d = event->pos() - dragFrom_;
        dragFrom_ = event->pos();
        panBy(-d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        return;
    }
    dragging_ = false;
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    const double x = viewport()->rect().contains(cursor) && cursor.x() > kGutter ? cursor.x() - kGutter : timeWidth() / 2;
    switch (event->key()) {
    case Qt::Key_W:
        zoomBy(1.25, x);
        break;
    case Qt::Key_S:
        zoomBy(0.8, x);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        panBy(-0.15 * timeWidth());
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        panBy(0.15 * timeWidth());
        break;
    case Qt::Key_F:
        fitAll();
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

QString TimelineView::unitTip(int device, std::size_t index) const {
    const ScheduleUnit& u = data_->lanes(device).units[index];
    const int stage = device / std::max(1, data_->devicesPerStage);
    return tr("<b>%1</b><br>micro-batch %2, %3 through model chunk %4 (stage %5)<br>start %6, duration %7"
              "<br>device %8")
        .arg(unitLabel(u, data_->virtualStages > 1))
        .arg(u.microbatch)
        .arg(u.forward ? tr("forward") : tr("backward"))
        .arg(u.chunk)
        .arg(stage)
        .arg(seconds(u.span.start), seconds(u.span.end - u.span.start))
        .arg(device);
}

bool TimelineView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const Hit hit = hitAt(help->pos());
        if (hit.span < 0) {
            QToolTip::hideText();
            return true;
        }
        const TimelineRow& row = rows_.rows()[static_cast<std::size_t>(hit.row)];
        if (row.lane == Lane::Schedule) {
            QToolTip::showText(help->globalPos(), unitTip(row.device, static_cast<std::size_t>(hit.span)), viewport());
            return true;
        }
        const SimEvent& e = data_->event(row.device, row.lane, static_cast<std::size_t>(hit.span));
        QString text = tr("<b>%1</b><br>%2, %3, micro-batch %4<br>start %5, duration %6")
                           .arg(q(e.name).toHtmlEscaped(),
                                e.collective ? q(collectiveName(e.kind)) : tr("compute"), q(phaseName(e.phase)))
                           .arg(e.microbatch)
                           .arg(seconds(e.start), seconds(e.duration));
        if (e.collective)
            text += tr("<br>%1 over %2").arg(bytes(e.bytes), q(session_->state().plan.mesh.setName(e.axes)));
        text += tr("<br>device %1 (node %2, rank %3)")
                    .arg(row.device)
                    .arg(row.device / data_->devicesPerNode)
                    .arg(row.device % data_->devicesPerNode);
        QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace shardscope::ui
