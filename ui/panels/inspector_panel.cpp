#include "inspector_panel.h"

#include "graph/strategy_legend.h"
#include "models/alternatives_model.h"
#include "util/qt_text.h"

#include "engine/evaluation/what_if.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QString shapeText(const std::vector<std::int64_t>& shape) {
    QStringList dims;
    for (std::int64_t d : shape)
        dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
}

QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& what, const QString& value, const QString& note = {}) {
    auto* item = new QTreeWidgetItem(parent, {what, value, note});
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

InspectorPanel::InspectorPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    title_ = new QLabel(tr("Select an op in the graph or the op list."), this);
    QFont big = title_->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.15);
    title_->setFont(big);
    title_->setWordWrap(true);
    details_ = new QLabel(this);
    details_->setWordWrap(true);
    details_->setTextFormat(Qt::RichText);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lock_ = new QCheckBox(tr("Locked: every search keeps this strategy (Ctrl+L)"), this);
    layout->addWidget(title_);
    layout->addWidget(details_);
    layout->addWidget(lock_);

    auto* split = new QSplitter(Qt::Vertical, this);
    breakdown_ = new QTreeWidget(split);
    breakdown_->setColumnCount(3);
    breakdown_->setHeaderLabels({tr("Cost of this op"), tr("Value"), tr("Detail")});
    breakdown_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    breakdown_->setRootIsDecorated(true);
    auto* whatIf = new QWidget(split);
    auto* whatIfLayout = new QVBoxLayout(whatIf);
    whatIfLayout->setContentsMargins(0, 0, 0, 0);
    whatIfLayout->addWidget(new QLabel(tr("Every strategy of this op, and the plan's figures with it:"), whatIf));
    alternatives_ = new AlternativesModel(this);
    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(alternatives_);
    sorted_->setSortRole(AlternativesModel::SortRole);
    table_ = new QTableView(whatIf);
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(AlternativesModel::StepTime, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(AlternativesModel::Strategy, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    whatIfLayout->addWidget(table_, 1);
    auto* buttons = new QHBoxLayout;
    apply_ = new QPushButton(tr("Use this strategy"), whatIf);
    apply_->setToolTip(tr("Override the op with the selected strategy (double-click a row does the same)"));
    research_ = new QPushButton(tr("Re-search around locks"), whatIf);
    research_->setToolTip(tr("Search again on this mesh, keeping every locked op (Shift+F5)"));
    buttons->addWidget(apply_);
    buttons->addStretch(1);
    buttons->addWidget(research_);
    whatIfLayout->addLayout(buttons);
    split->addWidget(breakdown_);
    split->addWidget(whatIf);
    layout->addWidget(split, 1);

    connect(session_, &Session::selectionChanged, this, &InspectorPanel::refresh);
    connect(session_, &Session::planChanged, this, &InspectorPanel::refresh);
    connect(lock_, &QCheckBox::clicked, this, [this](bool on) {
        if (const auto op = session_->selectedOp())
            session_->setLocked(*op, on);
    });
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { applyAlternative(index.row()); });
    connect(apply_, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            applyAlternative(rows.front().row());
    });
    connect(research_, &QPushButton::clicked, this, [this] { session_->search().run(true); });
    refresh();
}

QString InspectorPanel::heading() const { return title_->text(); }

QString InspectorPanel::details() const { return details_->text(); }

void InspectorPanel::applyAlternative(int sortedRow) {
    const auto op = session_->selectedOp();
    if (!op || sortedRow < 0 || sortedRow >= sorted_->rowCount())
        return;
    const int source = sorted_->mapToSource(sorted_->index(sortedRow, 0)).row();
    session_->overrideStrategy(*op, alternatives_->alternative(source).strategy);
}

void InspectorPanel::refresh() {
    const PlanState& s = session_->state();
    const auto selected = session_->selectedOp();
    const bool show = s.problem && selected && selected->index() < s.problem->graph->ops().size();
    lock_->setEnabled(show);
    apply_->setEnabled(show);
    research_->setEnabled(s.problem != nullptr);
    breakdown_->clear();
    if (!show) {
        title_->setText(tr("Select an op in the graph or the op list."));
        details_->clear();
        lock_->setChecked(false);
        alternatives_->setAlternatives({}, 0, 0);
        return;
    }
    const OpId o = *selected;
    const Graph& g = *s.problem->graph;
    const Op& op = g.op(o);
    const Mesh& mesh = s.plan.mesh;
    const OpStrategy& strategy = s.plan.ops[o.index()].strategy;
    title_->setText(q(op.name));
    QString html = tr("<b>%1</b> in <i>%2</i><br>rule <tt>%3</tt><br>strategy <b>%4</b> (%5)")
                       .arg(q(opKindName(op.kind)), q(op.block.empty() ? std::string("-") : op.block),
                            q(op.rule.toString()).toHtmlEscaped(), q(strategy.toString(op.rule, mesh)),
                            q(strategyLabel(op, strategy, mesh)));
    if (op.attentionCore) {
        // Which keys each query sees, and so how much of the s x t products a fused kernel computes.
        const QString mask = op.window > 0 ? tr("a sliding window of %1 keys").arg(op.window)
                             : op.causal   ? tr("causal")
                                           : tr("every key");
        html += tr("<br>attention core, %1: a fused kernel computes %2% of its query x key products")
                    .arg(mask)
                    .arg(100 * op.attendedShare(), 0, 'g', 3);
    }
    if (const PipelineReport& pipe = s.evaluation->pipeline; pipe.active()) {
        // Its stage: the figures every op of that stage shares.
        const StageReport& st = pipe.stages[static_cast<std::size_t>(pipe.stageOfOp[o.index()])];
        html += tr("<br>stage <b>%1</b> of %2 (model chunk %3): %4 per micro-batch%5, peak %6 with %7 "
                   "micro-batches in flight")
                    .arg(st.stage)
                    .arg(pipe.stages.size())
                    .arg(s.plan.pipeline.chunkOf[o.index()])
                    .arg(seconds(st.perMicrobatch()), st.stage == pipe.slowest ? tr(" (the slowest)") : QString(),
                         bytes(st.peakMemory))
                    .arg(st.inFlight, 0, 'g', 3);
    }
    html += QStringLiteral("<table>");
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = g.tensor(op.inputs[k]);
        html += tr("<tr><td>in</td><td>%1</td><td><tt>%2</tt></td><td>%3 %4</td><td><tt>%5</tt></td></tr>")
                    .arg(q(t.name), shapeText(t.shape), q(dtypeName(t.dtype)), q(tensorRoleName(t.role)),
                         q(inputSharding(op, k, strategy).toString(mesh)));
    }
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
        const Tensor& t = g.tensor(op.outputs[k]);
        html += tr("<tr><td>out</td><td>%1</td><td><tt>%2</tt></td><td>%3 %4</td><td><tt>%5</tt></td></tr>")
                    .arg(q(t.name), shapeText(t.shape), q(dtypeName(t.dtype)), q(tensorRoleName(t.role)),
                         q(outputSharding(op, k, strategy).toString(mesh)));
    }
    html += QStringLiteral("</table>");
    // Why each axis splits what it does: the tactic, the neighbour it propagated from, the search...
    QString why;
    for (std::size_t a = 0; a < mesh.rank(); ++a)
        if (const std::string reason = s.plan.whyOf(*s.problem->graph, o, a); !reason.empty())
            why += tr("<br><i>why</i> %1: %2").arg(q(mesh.axes[a].name), q(reason).toHtmlEscaped());
    details_->setText(html + why);
    lock_->setChecked(s.plan.ops[o.index()].locked);

    // Breakdown: compute, each collective, memory.
    const OpReport& report = s.evaluation->perOp[o.index()];
    auto* compute = row(nullptr, tr("Compute"), seconds(report.computeTime));
    breakdown_->addTopLevelItem(compute);
    row(compute, tr("forward"), seconds(report.forwardTime));
    row(compute, tr("backward"), seconds(report.backwardTime));
    if (report.recomputeTime > 0)
        row(compute, tr("recomputation"), seconds(report.recomputeTime));
    if (report.optimizerTime > 0)
        breakdown_->addTopLevelItem(row(nullptr, tr("Optimizer update"), seconds(report.optimizerTime)));
    auto* comm = row(nullptr, tr("Communication"), seconds(report.commTime));
    breakdown_->addTopLevelItem(comm);
    for (const CollectiveCost& c : report.collectives)
        row(comm, tr("%1 %2").arg(q(collectiveName(c.kind)), q(purposeName(c.purpose))), seconds(c.totalTime()),
            tr("%1 over %2, %3 x %4, %5").arg(q(phaseName(c.phase)), q(mesh.setName(c.axes)), QString::number(c.count),
                                             bytes(c.bytes), q(g.tensor(c.tensor).name)));
    auto* memory = row(nullptr, tr("Memory per device"), bytes(report.memory.sum()));
    breakdown_->addTopLevelItem(memory);
    row(memory, tr("parameters"), bytes(report.memory.parameters));
    row(memory, tr("gradients"), bytes(report.memory.gradients));
    row(memory, tr("optimizer state"), bytes(report.memory.optimizer));
    row(memory, tr("saved activations"), bytes(report.memory.activations));
    row(memory, tr("largest buffer while it runs"), bytes(report.transient));
    breakdown_->expandAll();

    alternatives_->setAlternatives(whatIf(*s.model, s.plan, *s.evaluation, o), s.evaluation->objective,
                                   s.evaluation->peakMemory);
}

} // namespace shardscope::ui
