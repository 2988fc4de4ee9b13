#include "timeline_view.h"

#include "jobs/background_release.h"

#include "timeline_metrics.h"

#include "graph/palette.h"
#include "util/qt_text.h"

#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

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
    releaseInBackground(std::exchange(data_, std::move(data)));
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
    rows_ = data_ ? TimelineRows(data_->sim->devices, data_->devicesPerNode, folded_, kLane, kHeader, data_->lanesShown)
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
    for (Lane lane : data_->lanesShown) {
        if (lane == Lane::Schedule)
            continue;
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
