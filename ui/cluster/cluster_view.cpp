#include "cluster_view.h"

#include "cluster_items.h"
#include "graph/palette.h"
#include "graph/zoom_view.h"
#include "util/qt_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLinearGradient>
#include <QPainter>
#include <QPixmap>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace shardscope::ui {

namespace {

/// Combo data for "follow the selected op".
constexpr int kFollowOp = -1;

QPixmap heatBar() {
    QPixmap bar(90, 10);
    QPainter p(&bar);
    for (int x = 0; x < 90; ++x) {
        p.setPen(heatColor(x / 89.0));
        p.drawLine(x, 0, x, 9);
    }
    return bar;
}

} // namespace

ClusterView::ClusterView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    axes_ = new QComboBox(this);
    axes_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    axes_->setToolTip(tr("Colour the devices by the groups a mesh axis (or a set of axes) forms"));
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setAutoRaise(true);
    note_ = new QLabel(this);
    bar->addWidget(new QLabel(tr("Groups of"), this));
    bar->addWidget(axes_);
    bar->addWidget(fit);
    bar->addWidget(note_, 1);
    auto* legendRow = new QHBoxLayout;
    auto* scale = new QLabel(this);
    scale->setPixmap(heatBar());
    legend_ = new QLabel(this);
    legend_->setTextFormat(Qt::RichText);
    legend_->setToolTip(tr("Line colour and width: bytes per step between the two ends, from pale (little) to dark "
                           "red (the busiest pair of that level); hover a line for its time and utilisation"));
    legendRow->addWidget(new QLabel(tr("bytes per step: little"), this));
    legendRow->addWidget(scale);
    legendRow->addWidget(new QLabel(tr("most"), this));
    legendRow->addWidget(legend_, 1);
    view_ = new ZoomView(&scene_, this);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);
    layout->addLayout(legendRow);

    connect(axes_, &QComboBox::currentIndexChanged, this, &ClusterView::recolour);
    connect(fit, &QToolButton::clicked, this, &ClusterView::fitToWindow);
    connect(session_, &Session::simulationChanged, this, &ClusterView::rebuild);
    connect(session_, &Session::selectionChanged, this, &ClusterView::recolour);
}

void ClusterView::fitToWindow() {
    if (!scene_.items().isEmpty())
        view_->fitInView(scene_.itemsBoundingRect().adjusted(-10, -10, 10, 10), Qt::KeepAspectRatio);
}

void ClusterView::setActive(bool active) {
    active_ = active;
    if (active_ && stale_)
        rebuild();
}

void ClusterView::rebuild() {
    stale_ = !active_;
    if (stale_)
        return;
    const auto sim = session_->simulation().result();
    scene_.clear();
    grid_ = nullptr;
    if (!sim || !session_->loaded()) {
        legend_->setText(session_->loaded() ? tr("Simulating...") : QString());
        note_->clear();
        return;
    }
    const PlanState& s = session_->state();
    const Cluster& cluster = *s.problem->cluster;
    const Mesh mesh = s.plan.mesh;
    // The axis-set choices follow the mesh.
    {
        const QVariant keep = axes_->currentData();
        const QSignalBlocker block(axes_);
        axes_->clear();
        axes_->addItem(tr("the selected op's collectives"), kFollowOp);
        axes_->addItem(tr("none"), 0);
        for (AxisSet set = 1; set < (AxisSet(1) << mesh.rank()); ++set)
            axes_->addItem(q(mesh.setName(set)), static_cast<int>(set));
        const int index = axes_->findData(keep);
        axes_->setCurrentIndex(index >= 0 ? index : 0);
    }
    const ClusterGeometry geometry = layoutCluster(sim->devices, cluster.devicesPerNode());
    const int perNode = cluster.devicesPerNode();
    grid_ = new ClusterGridItem(geometry, [mesh, perNode](int d) {
        QStringList coords;
        for (std::size_t a = 0; a < mesh.rank(); ++a)
            coords << QStringLiteral("%1=%2").arg(q(mesh.axes[a].name)).arg(mesh.coordinate(d, AxisId(a)));
        return tr("device %1: node %2, rank %3\nmesh %4").arg(d).arg(d / perNode).arg(d % perNode).arg(coords.join(QStringLiteral(", ")));
    });
    scene_.addItem(grid_);
    // Links, one line per endpoint pair (both directions together), coloured by bytes per step.
    QString legend;
    int span = 1; // nodes per endpoint at this level
    const double step = sim->stepTime;
    for (std::size_t l = 0; l < sim->traffic.size(); ++l) {
        if (l >= 2)
            span *= cluster.levels[l - 1].size;
        const LevelTraffic& t = sim->traffic[l];
        const LinkLevel level = cluster.levels[l];
        // An endpoint above level 0 is a group of nodes; every device's link of this level carries
        // its traffic, each at the level's achieved bandwidth.
        const double perEndpoint = l == 0 ? level.achievedBandwidth() : level.achievedBandwidth() * span * perNode;
        std::map<std::pair<int, int>, std::pair<double, double>> undirected;
        double most = 0;
        for (const PairTraffic& p : t.pairs) {
            auto key = std::minmax(p.from, p.to);
            auto& both = undirected[{key.first, key.second}];
            (p.from < p.to ? both.first : both.second) += p.bytes;
        }
        for (const auto& [pair, both] : undirected)
            most = std::max(most, both.first + both.second);
        for (const auto& [pair, both] : undirected) {
            const QPointF a = geometry.endpoint(int(l), pair.first, span);
            const QPointF b = geometry.endpoint(int(l), pair.second, span);
            const QPointF d = b - a;
            const double len = std::max(1.0, std::hypot(d.x(), d.y()));
            const QPointF bend = QPointF(-d.y(), d.x()) / len * (l == 0 ? 10.0 : 26.0);
            QPainterPath path(a);
            path.quadTo((a + b) / 2 + bend, b);
            const double fraction = (both.first + both.second) / most;
            QColor color = heatColor(fraction);
            color.setAlpha(215);
            const auto ends = pair;
            const auto bytesBoth = both;
            const bool devices = l == 0;
            auto* item = new LinkItem(path, [ends, bytesBoth, level, step, devices, perEndpoint] {
                const double busiest = std::max(bytesBoth.first, bytesBoth.second);
                const double time = busiest / perEndpoint;
                return tr("%1 %2 <-> %1 %3 (%4 link)\n%5 per step: %6 one way, %7 the other\n"
                          "%8 at %9/s per direction: %10% of the %11 step")
                    .arg(devices ? tr("device") : tr("node"))
                    .arg(ends.first)
                    .arg(ends.second)
                    .arg(q(level.name), bytes(bytesBoth.first + bytesBoth.second), bytes(bytesBoth.first),
                         bytes(bytesBoth.second), seconds(time), bytes(perEndpoint))
                    .arg(100.0 * time / step, 0, 'f', 1)
                    .arg(seconds(step));
            });
            item->setPen(QPen(color, (l == 0 ? 1.0 : 2.0) + 4.0 * fraction, Qt::SolidLine, Qt::RoundCap));
            // Links across nodes run beneath the node boxes, so only the part between nodes shows.
            item->setZValue(l == 0 ? 3 : -1);
            scene_.addItem(item);
        }
        legend += tr("&nbsp;&nbsp;<b>%1</b> links: %2 per step in all, busiest pair %3")
                      .arg(q(level.name), bytes(t.bytesPerStep), bytes(most));
    }
    legend_->setText(legend);
    scene_.setSceneRect(QRectF(QPointF(-20, -20), geometry.size + QSizeF(40, 40)));
    recolour();
    fitToWindow();
}

AxisSet ClusterView::selectedOpAxes(QString* what) const {
    const auto op = session_->selectedOp();
    const PlanState& s = session_->state();
    if (!op || !s.evaluation)
        return 0;
    const OpReport& r = s.evaluation->perOp[op->index()];
    const CollectiveCost* slowest = nullptr;
    for (const CollectiveCost& c : r.collectives)
        if (!slowest || c.totalTime() > slowest->totalTime())
            slowest = &c;
    if (!slowest) {
        *what = tr("%1 causes no collective").arg(q(s.problem->graph->op(*op).name));
        return 0;
    }
    *what = tr("%1: %2 (%3) over %4")
                .arg(q(s.problem->graph->op(*op).name), q(collectiveName(slowest->kind)), q(purposeName(slowest->purpose)),
                     q(s.plan.mesh.setName(slowest->axes)));
    return slowest->axes;
}

void ClusterView::recolour() {
    if (!grid_)
        return;
    const Mesh& mesh = session_->state().plan.mesh;
    QString what;
    const int choice = axes_->currentData().toInt();
    groupAxes_ = choice == kFollowOp ? selectedOpAxes(&what) : static_cast<AxisSet>(choice);
    std::vector<QColor> colors;
    std::map<int, int> indexOfLeader;
    if (groupAxes_)
        for (int d = 0; d < mesh.deviceCount(); ++d) {
            const int leader = mesh.groupLeader(d, groupAxes_);
            colors.push_back(groupColor(indexOfLeader.emplace(leader, int(indexOfLeader.size())).first->second));
        }
    grid_->setDeviceColors(std::move(colors));
    if (groupAxes_)
        what += (what.isEmpty() ? QString() : QStringLiteral(": ")) +
                tr("%1 groups of %2 devices over %3")
                    .arg(indexOfLeader.size())
                    .arg(mesh.groupSize(groupAxes_))
                    .arg(q(mesh.setName(groupAxes_)));
    note_->setText(what);
}

} // namespace shardscope::ui
