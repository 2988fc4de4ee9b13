#include "graph_view.h"

#include "collective_badges.h"
#include "graph_items.h"
#include "layered_layout.h"
#include "palette.h"
#include "strategy_legend.h"
#include "util/qt_text.h"
#include "zoom_view.h"

#include <QCompleter>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainterPath>
#include <QPixmap>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace shardscope::ui {

namespace {

constexpr QSizeF kOpSize(168, 52);
constexpr QSizeF kStackSize(300, 78);

QPainterPath bezierPath(const std::vector<LayoutPoint>& points) {
    QPainterPath path;
    if (points.empty())
        return path;
    path.moveTo(points[0].x, points[0].y);
    for (std::size_t i = 1; i + 2 < points.size(); i += 3)
        path.cubicTo(points[i].x, points[i].y, points[i + 1].x, points[i + 1].y, points[i + 2].x, points[i + 2].y);
    return path;
}

QStringList badges(const std::vector<CollectiveSummary>& summary) {
    QStringList out;
    for (const CollectiveSummary& s : summary)
        out << q(badgeText(s));
    return out;
}

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

GraphView::GraphView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), layout_(serialPool()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    find_ = new QLineEdit(this);
    find_->setPlaceholderText(tr("Find op by name (Ctrl+F)"));
    find_->setClearButtonEnabled(true);
    find_->setMaximumWidth(320);
    auto* fit = toolButton(tr("Fit"), tr("Fit the graph to the window (Ctrl+0)"), this);
    auto* zoomIn = toolButton(tr("+"), tr("Zoom in (Ctrl++)"), this);
    auto* zoomOut = toolButton(tr("-"), tr("Zoom out (Ctrl+-)"), this);
    expand_ = toolButton(tr("Expand blocks"), tr("Show the repeated blocks op by op (Ctrl+E)"), this);
    expand_->setCheckable(true);
    status_ = new QLabel(this);
    bar->addWidget(find_);
    bar->addWidget(fit);
    bar->addWidget(zoomIn);
    bar->addWidget(zoomOut);
    bar->addWidget(expand_);
    bar->addWidget(status_, 1);
    layout->addLayout(bar);

    auto* split = new QSplitter(Qt::Horizontal, this);
    view_ = new ZoomView(&scene_, split);
    legend_ = new QListWidget(split);
    legend_->setToolTip(tr("Colours: what each op's strategy splits over which mesh axis (ops per colour)"));
    legend_->setSelectionMode(QAbstractItemView::NoSelection);
    legend_->setMinimumWidth(150);
    legend_->setWordWrap(true);
    legend_->setResizeMode(QListView::Adjust);
    legend_->setTextElideMode(Qt::ElideNone);
    split->addWidget(view_);
    split->addWidget(legend_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setSizes({900, 280});
    layout->addWidget(split, 1);

    connect(find_, &QLineEdit::returnPressed, this, [this] {
        if (!findOp(find_->text()))
            status_->setText(tr("No op matches \"%1\"").arg(find_->text()));
    });
    connect(fit, &QToolButton::clicked, this, &GraphView::fitToWindow);
    connect(zoomIn, &QToolButton::clicked, this, &GraphView::zoomIn);
    connect(zoomOut, &QToolButton::clicked, this, &GraphView::zoomOut);
    connect(expand_, &QToolButton::toggled, this, &GraphView::setExpanded);
    connect(view_, &ZoomView::nodeClicked, this, &GraphView::onNodeClicked);
    connect(view_, &ZoomView::nodeActivated, this, &GraphView::onNodeActivated);
    connect(session_, &Session::problemChanged, this, &GraphView::requestLayout);
    connect(session_, &Session::planChanged, this, &GraphView::refreshLooks);
    connect(session_, &Session::selectionChanged, this, [this] { refreshSelection(true); });
    connect(&layout_, &JobRunner::failed, this,
            [this](const QString&, const QString& error) { status_->setText(tr("Layout failed: %1").arg(error)); });
}

void GraphView::setExpanded(bool expanded) {
    if (expanded == expanded_)
        return;
    expanded_ = expanded;
    expand_->setChecked(expanded);
    requestLayout();
}

void GraphView::fitToWindow() { view_->fitAll(); }

void GraphView::zoomIn() { view_->zoomBy(1.25); }

void GraphView::zoomOut() { view_->zoomBy(0.8); }

void GraphView::focusFind() {
    find_->setFocus();
    find_->selectAll();
}

QStringList GraphView::legendLabels() const {
    QStringList out;
    for (int i = 0; i < legend_->count(); ++i)
        out << legend_->item(i)->text();
    return out;
}

QPoint GraphView::nodePosition(int index) const {
    return view_->mapFromScene(nodes_[static_cast<std::size_t>(index)]->scenePos());
}

void GraphView::requestLayout() {
    scene_.clear();
    nodes_.clear();
    edges_.clear();
    display_.reset();
    laidOut_.reset();
    highlighted_ = -1;
    legend_->clear();
    if (!session_->loaded()) {
        layout_.cancel();
        return;
    }
    const auto problem = session_->state().problem;
    QStringList names;
    for (const Op& op : problem->graph->ops())
        names << q(op.name);
    auto* completer = new QCompleter(names, find_);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    find_->setCompleter(completer);
    const bool collapse = !expanded_ && problem->blocks;
    expand_->setEnabled(problem->blocks.has_value());
    status_->setText(tr("Laying out %1 ops...").arg(problem->graph->ops().size()));
    layout_.start<Layout>(
        tr("Laying out the graph"),
        [problem, collapse](const JobContext& context) {
            auto display = std::make_shared<DisplayGraph>(
                buildDisplayGraph(*problem->graph, problem->edges, collapse ? &*problem->blocks : nullptr));
            LayoutRequest request;
            for (const DisplayNode& n : display->nodes) {
                const QSizeF size = n.stack ? kStackSize : kOpSize;
                request.nodes.push_back(LayoutNode{size.width(), size.height()});
            }
            for (const DisplayEdge& e : display->edges)
                request.edges.push_back(LayoutEdge{e.from, e.to});
            return Layout{problem, display, layoutAnySize(request, context.stop)};
        },
        [this](const Layout& l) { applyLayout(l); });
}

void GraphView::applyLayout(const Layout& l) {
    if (l.problem != session_->state().problem)
        return;
    laidOut_ = l.problem;
    display_ = l.display;
    for (std::size_t i = 0; i < display_->nodes.size(); ++i) {
        auto* item = new NodeItem(static_cast<int>(i), display_->nodes[i].stack ? kStackSize : kOpSize);
        item->setPos(l.geometry.centers[i].x, l.geometry.centers[i].y);
        scene_.addItem(item);
        nodes_.push_back(item);
    }
    for (std::size_t i = 0; i < display_->edges.size(); ++i) {
        auto* item = new EdgeItem(bezierPath(l.geometry.edgePaths[i]));
        scene_.addItem(item);
        edges_.push_back(item);
    }
    scene_.setSceneRect(QRectF(-20, -20, l.geometry.width + 40, l.geometry.height + 40));
    status_->setText(display_->stackNode >= 0
                         ? tr("%1 ops; %2 repeated blocks collapsed (double-click to expand)")
                               .arg(l.problem->graph->ops().size())
                               .arg(display_->blocks)
                         : tr("%1 ops").arg(l.problem->graph->ops().size()));
    refreshLooks();
    refreshSelection(false);
    view_->fitAll();
    emit layoutFinished();
}

void GraphView::refreshLooks() {
    const PlanState& s = session_->state();
    if (!display_ || laidOut_ != s.problem)
        return;
    const Graph& g = *s.problem->graph;
    const StrategyLegend legend = buildLegend(g, s.plan);
    auto colorOf = [&](OpId o) {
        const int entry = legend.entryOfOp[o.index()];
        return legendColor(entry, legend.entries[static_cast<std::size_t>(entry)].replicated);
    };
    legend_->clear();
    for (std::size_t i = 0; i < legend.entries.size(); ++i) {
        QPixmap swatch(14, 14);
        swatch.fill(legendColor(static_cast<int>(i), legend.entries[i].replicated));
        auto* item = new QListWidgetItem(QIcon(swatch), tr("%1 (%2)").arg(q(legend.entries[i].label)).arg(legend.entries[i].ops));
        item->setToolTip(item->text());
        legend_->addItem(item);
    }
    // Pipelined: each stage's colour (the bands along the nodes' tops) after the strategies.
    const PipelineReport& pipe = s.evaluation->pipeline;
    for (const StageReport& st : pipe.stages) {
        QPixmap swatch(14, 14);
        swatch.fill(stageColor(st.stage));
        auto* item = new QListWidgetItem(QIcon(swatch), tr("stage %1 (%2 ops)").arg(st.stage).arg(st.ops));
        item->setToolTip(tr("pipeline stage %1: the band along the top of its ops and of its blocks in the stack")
                             .arg(st.stage));
        legend_->addItem(item);
    }
    auto stageOf = [&](OpId o) { return pipe.stageOfOp[o.index()]; };
    // Resharding inside the stack shows on the stack itself.
    std::vector<CollectiveSummary> stackInternal;
    for (std::size_t i = 0; i < s.problem->edges.size(); ++i) {
        const Edge& e = s.problem->edges[i];
        if (display_->stackNode >= 0 && display_->nodeOfOp[e.from.index()] == display_->stackNode &&
            display_->nodeOfOp[e.to.index()] == display_->stackNode)
            addCollectives(stackInternal, s.evaluation->perEdge[i].collectives, true);
    }
    for (std::size_t i = 0; i < display_->nodes.size(); ++i) {
        const DisplayNode& n = display_->nodes[i];
        NodeLook look;
        std::vector<CollectiveSummary> summary;
        for (OpId o : n.members)
            addCollectives(summary, s.evaluation->perOp[o.index()].collectives, false);
        if (n.stack) {
            const RepeatedBlocks& b = *s.problem->blocks;
            std::map<int, int> votes;
            for (OpId o : n.members) {
                ++votes[legend.entryOfOp[o.index()]];
                look.locked = look.locked || s.plan.ops[o.index()].locked;
            }
            const int common = std::max_element(votes.begin(), votes.end(), [](auto& a, auto& c) {
                                   return a.second < c.second;
                               })->first;
            look.fill = legendColor(common, legend.entries[static_cast<std::size_t>(common)].replicated).lighter(108);
            look.undecided = std::all_of(n.members.begin(), n.members.end(), [&](OpId o) {
                return s.plan.ops[o.index()].undecided();
            });
            for (OpId o : b.blocks.front())
                look.strip << colorOf(o);
            // From the first block's first op to the last block's last: a block of two layers ends a layer later.
            look.title = tr("%1 ... %2").arg(q(g.op(b.blocks.front().front()).block), q(g.op(b.blocks.back().back()).block));
            look.subtitle = tr("x %1 blocks of %2 ops").arg(b.count()).arg(b.period());
            look.stack = true;
            if (pipe.active()) {
                for (const auto& block : b.blocks)
                    look.stages << stageColor(stageOf(block.front()));
                look.stageText = tr("%1 stages; blocks by model chunk: %2")
                                     .arg(pipe.stages.size())
                                     .arg(q(s.plan.pipeline.rangesText()));
            }
            for (const CollectiveSummary& c : stackInternal) {
                auto it = std::find_if(summary.begin(), summary.end(), [&](auto& x) { return x.kind == c.kind; });
                if (it == summary.end())
                    summary.push_back(c);
                else {
                    it->count += c.count;
                    it->bytes += c.bytes;
                }
            }
        } else {
            const Op& op = g.op(n.op);
            look.fill = colorOf(n.op);
            look.title = q(op.name);
            look.subtitle = q(opKindName(op.kind)) + QStringLiteral("  ") + q(s.evaluation->perOp[n.op.index()].strategy);
            look.locked = s.plan.ops[n.op.index()].locked;
            look.undecided = s.plan.ops[n.op.index()].undecided();
            if (pipe.active()) {
                look.stages << stageColor(stageOf(n.op));
                look.stageText = tr("stage %1 of %2").arg(stageOf(n.op)).arg(pipe.stages.size());
            }
            if (look.undecided) {
                look.fill = QColor(240, 240, 242);
                look.subtitle = q(opKindName(op.kind)) + tr("  undecided");
            }
        }
        look.badges = badges(summary);
        nodes_[i]->setLook(look);
    }
    double most = 0;
    std::vector<double> sent(display_->edges.size(), 0.0);
    for (std::size_t i = 0; i < display_->edges.size(); ++i) {
        for (std::size_t e : display_->edges[i].edges)
            sent[i] += s.evaluation->perEdge[e].bytesSent;
        most = std::max(most, sent[i]);
    }
    for (std::size_t i = 0; i < display_->edges.size(); ++i) {
        const DisplayEdge& d = display_->edges[i];
        std::vector<CollectiveSummary> summary;
        for (std::size_t e : d.edges)
            addCollectives(summary, s.evaluation->perEdge[e].collectives, true);
        const bool moves = sent[i] > 0;
        const double width = moves ? 1.5 + 6.0 * std::sqrt(sent[i] / most) : 1.0;
        edges_[i]->setLook(width, moves ? QColor(200, 90, 30) : QColor(140, 140, 150), d.parameterShare,
                           badges(summary).join(QStringLiteral(" ")));
    }
}

void GraphView::refreshSelection(bool centre) {
    if (!display_ || laidOut_ != session_->state().problem)
        return;
    const auto op = session_->selectedOp();
    const int node = op ? display_->nodeOfOp[op->index()] : -1;
    if (highlighted_ >= 0)
        nodes_[static_cast<std::size_t>(highlighted_)]->setHighlighted(false);
    highlighted_ = node;
    if (node < 0)
        return;
    NodeItem* item = nodes_[static_cast<std::size_t>(node)];
    item->setHighlighted(true);
    if (centre && !view_->mapToScene(view_->viewport()->rect()).boundingRect().contains(item->sceneBoundingRect()))
        view_->centerOn(item);
}

bool GraphView::findOp(const QString& name) {
    if (!session_->loaded() || name.trimmed().isEmpty())
        return false;
    const Graph& g = *session_->state().problem->graph;
    std::optional<OpId> found = g.findOp(name.trimmed().toStdString());
    for (OpId o : g.topoOrder()) {
        if (found)
            break;
        if (q(g.op(o).name).contains(name.trimmed(), Qt::CaseInsensitive))
            found = o;
    }
    if (!found)
        return false;
    session_->selectOp(*found);
    refreshSelection(false);
    if (highlighted_ >= 0)
        view_->centerOn(nodes_[static_cast<std::size_t>(highlighted_)]);
    return true;
}

void GraphView::onNodeClicked(int index) {
    const DisplayNode& n = display_->nodes[static_cast<std::size_t>(index)];
    session_->selectOp(n.op);
}

void GraphView::onNodeActivated(int index) {
    if (display_->nodes[static_cast<std::size_t>(index)].stack)
        setExpanded(true);
}

} // namespace shardscope::ui
