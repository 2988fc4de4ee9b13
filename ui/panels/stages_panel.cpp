#include "panels/stages_panel.h"

#include "graph/palette.h"
#include "util/pipeline_text.h"
#include "util/qt_text.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

/// The layers (pipeline cut units) of stage `stage` under `layout`: "6-11" or, interleaved, "0-2, 12-14".
QString blocksOf(const PipelineLayout& layout, int stage) {
    QStringList ranges;
    int first = 0;
    for (int c = 0; c < layout.chunks(); ++c) {
        const int n = layout.chunkBlocks[static_cast<std::size_t>(c)];
        if (layout.stageOfChunk(c) == stage)
            ranges << QStringLiteral("%1-%2").arg(first).arg(first + n - 1);
        first += n;
    }
    return ranges.join(QStringLiteral(", "));
}

} // namespace

StagesPanel::StagesPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("stageSummary"));
    summary_->setWordWrap(true);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    lockCut_ = new QCheckBox(tr("Lock the stage cut"), this);
    lockCut_->setObjectName(QStringLiteral("lockCut"));
    lockCut_->setToolTip(tr("Searches keep these blocks on these stages (undoable). Unlocked, the search "
                            "chooses the cut: the slowest stage as fast as each stage's memory allows."));
    top->addWidget(summary_, 1);
    top->addWidget(lockCut_);
    layout->addLayout(top);
    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("stageTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->setColumnCount(12);
    table_->setHorizontalHeaderLabels({tr("Stage"), tr("Layers"), tr("Ops"), tr("Per micro-batch"), tr("Forward"),
                                       tr("Backward"), tr("Comm"), tr("Sends"), tr("Per step"), tr("In flight"),
                                       tr("Peak memory"), tr("Done (simulated)")});
    table_->setToolTip(tr("Per stage, the analytic estimate the search ranks by; the last column is when the "
                          "simulated step finishes the stage's work."));
    // Sized once after each fill (refresh()): ResizeToContents would measure every cell again at
    // every cell set, seconds for a pipeline of 64 stages.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    layout->addWidget(table_, 1);
    connect(lockCut_, &QCheckBox::toggled, this, [this](bool on) { session_->setStageCutLocked(on); });
    connect(session_, &Session::planChanged, this, &StagesPanel::refresh);
    connect(session_, &Session::simulationChanged, this, &StagesPanel::refresh);
    refresh();
}

void StagesPanel::refresh() {
    const bool loaded = session_->loaded() && session_->state().evaluation;
    const PipelineReport* p = loaded ? &session_->state().evaluation->pipeline : nullptr;
    const bool active = p && p->active();
    lockCut_->setEnabled(active);
    {
        const QSignalBlocker quiet(lockCut_);
        lockCut_->setChecked(active && session_->state().plan.pipeline.locked);
    }
    table_->setRowCount(active ? static_cast<int>(p->stages.size()) : 0);
    if (!active) {
        summary_->setText(tr("The plan is not pipelined. A mesh with a pipe axis first (pipe=4,data=...) "
                             "cuts the layers into stages; the search tries such meshes with mesh \"auto\"."));
        return;
    }
    const auto sim = session_->simulation().result();
    const bool simulated = sim && sim->classes.size() == p->stages.size();
    summary_->setText((simulated ? tr("Step %1 (simulated); ").arg(seconds(sim->stepTime))
                                 : tr("Step ~%1 (estimate; simulating); ").arg(seconds(session_->state().evaluation->stepTime))) +
                      pipelineSummary(*p) +
                      (p->balanced ? QString() : tr("; uneven stages, stage %1 sets the pace").arg(p->slowest)));
    const PipelineLayout& layout = session_->state().plan.pipeline;
    const double capacity = session_->state().evaluation->memoryCapacity;
    for (const StageReport& s : p->stages) {
        const QStringList cells{QString::number(s.stage),
                                blocksOf(layout, s.stage),
                                QString::number(s.ops),
                                seconds(s.perMicrobatch()),
                                seconds(s.forward),
                                seconds(s.backward),
                                seconds(s.comm),
                                seconds(s.transfer),
                                seconds(s.stepWork),
                                QString::number(s.inFlight, 'g', 3),
                                bytes(s.peakMemory),
                                simulated ? seconds(sim->classes[std::size_t(s.stage)].stepTime) : QString()};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c > 1)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == 0)
                item->setIcon([&] {
                    QPixmap swatch(12, 12);
                    swatch.fill(stageColor(s.stage));
                    return QIcon(swatch);
                }());
            if (c == 3 && s.stage == p->slowest) {
                item->setToolTip(tr("the slowest stage: it sets the pipeline's pace"));
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            if (c == 10 && s.peakMemory > capacity) {
                item->setForeground(QColor(190, 30, 30));
                item->setToolTip(tr("over the %1 of a device").arg(bytes(capacity)));
            }
            table_->setItem(s.stage, c, item);
        }
    }
    table_->resizeColumnsToContents();
}

} // namespace shardscope::ui
