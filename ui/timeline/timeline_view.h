#pragma once
// The timeline panel: the simulated step per device, rows grouped by node with a compute and a
// communication lane per device, a time axis with units, a memory strip for the selected device
// with its peak. Wheel zooms around the cursor, dragging pans, W/S zoom and A/D pan as in trace
// viewers; hovering names an event; clicking selects its op everywhere. Spans narrower than a pixel
// are merged per pixel column (lane_buckets.h), so 1024 devices and a million events stay fluid.

#include "timeline_data.h"
#include "timeline_rows.h"

#include "jobs/job_runner.h"
#include "session/session.h"

#include <QAbstractScrollArea>

#include <optional>

namespace shardscope::ui {

class TimelineView final : public QAbstractScrollArea {
    Q_OBJECT
public:
    /// A timeline of `session`'s simulated plan.
    explicit TimelineView(Session* session, QWidget* parent = nullptr);

    /// Shows `data` directly (benchmarks); the session's simulations replace it.
    void setData(std::shared_ptr<const TimelineData> data);
    /// The data shown, or null while the plan is being simulated.
    const TimelineData* data() const { return data_.get(); }
    /// True while the simulation is being arranged for drawing.
    bool busy() const { return arrange_.busy(); }
    /// The time mapping.
    const TimeAxis& axis() const { return axis_; }
    /// Zooms by `factor` around time-area x `x` (pixels right of the labels).
    void zoomBy(double factor, double x);
    /// Pans by `pixels` (positive: later).
    void panBy(double pixels);
    /// Shows the whole step.
    void fitAll();
    /// The device whose memory the strip shows.
    int selectedDevice() const { return device_; }
    /// Shows `device`'s memory in the strip.
    void selectDevice(int device);
    /// Folds or unfolds node `node`'s lanes.
    void toggleNode(int node);
    /// Where the middle of `event` of `device` is drawn, in viewport coordinates, if it is visible.
    std::optional<QPoint> pointOf(int device, const SimEvent& event) const;
    /// Paints what the view shows into `painter` over `size` pixels (exports use it).
    void render(QPainter& painter, const QSize& size) const;

protected:
    /// Paints the viewport.
    void paintEvent(QPaintEvent* event) final;
    /// Keeps the axis within the step after a resize.
    void resizeEvent(QResizeEvent* event) final;
    /// Zooms around the cursor; with Shift scrolls the rows.
    void wheelEvent(QWheelEvent* event) final;
    /// Selects the event under the cursor, folds a node, or starts a pan.
    void mousePressEvent(QMouseEvent* event) final;
    /// Pans while dragging.
    void mouseMoveEvent(QMouseEvent* event) final;
    /// W/S zoom, A/D pan, F fits.
    void keyPressEvent(QKeyEvent* event) final;
    /// Tooltips for events.
    bool viewportEvent(QEvent* event) final;
    /// Follows the scroll bars.
    void scrollContentsBy(int dx, int dy) final;

private:
    struct Hit {
        int row = -1;
        long span = -1;
    };
    Hit hitAt(const QPoint& pos) const;
    double timeWidth() const;
    double laneTop() const;
    double laneBottom() const;
    void rebuildRows();
    void setAxis(TimeAxis axis);
    void syncScrollBars();
    void onSimulation();
    void onSelection();
    void paintRuler(QPainter& p, const QSize& size) const;
    void paintLanes(QPainter& p, const QSize& size) const;
    void paintSpans(QPainter& p, int device, Lane lane, const std::vector<Bucket>& buckets, double y, double h) const;
    /// The schedule lane: one labelled block per micro-batch's forward or backward through a chunk.
    void paintUnits(QPainter& p, int device, const std::vector<Bucket>& buckets, double y, double h) const;
    /// The tooltip of schedule unit `index` of `device`.
    QString unitTip(int device, std::size_t index) const;
    void paintMemory(QPainter& p, const QSize& size) const;

    Session* session_;
    JobRunner arrange_;
    std::shared_ptr<const TimelineData> data_;
    TimeAxis axis_;
    TimelineRows rows_;
    std::vector<bool> folded_;
    int device_ = 0;
    QPoint dragFrom_;
    bool dragging_ = false;
    bool syncing_ = false;
};

} // namespace shardscope::ui
