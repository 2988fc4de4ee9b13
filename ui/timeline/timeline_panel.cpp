#include "timeline_panel.h"

#include "graph/palette.h"
#include "timeline_view.h"
#include "util/qt_text.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace shardscope::ui {

TimelinePanel::TimelinePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    overlap_ = new QCheckBox(tr("Overlap"), this);
    overlap_->setChecked(session_->simulation().options().overlap);
    overlap_->setToolTip(tr("Run bucketed gradient synchronisation behind the backward and prefetch ZeRO-3 gathers; "
                            "off reproduces the analytic step time"));
    bucket_ = new QSpinBox(this);
    bucket_->setObjectName(QStringLiteral("bucketMb"));
    bucket_->setRange(1, 4096);
    bucket_->setSuffix(tr(" MB buckets"));
    bucket_->setToolTip(tr("Gradient reductions and ZeRO gathers are coalesced into buckets of this size "
                           "(PyTorch DDP's bucket_cap_mb); a step setting of the plan, undoable"));
    bucket_->setValue(static_cast<int>(session_->state().plan.settings.bucketBytes / 1e6));
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole step (F)"));
    fit->setAutoRaise(true);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("timelineSummary"));
    bar->addWidget(overlap_);
    bar->addWidget(bucket_);
    bar->addWidget(fit);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(summary_, 1);
    QString key;
    for (int k = 0; k < spanKindCount(); ++k)
        key += QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp; ")
                   .arg(spanColor(k).name(), spanKindShortName(k));
    auto* legend = new QLabel(key, this);
    legend->setToolTip(tr("fwd forward, bwd backward, opt optimizer; AR all-reduce, AG all-gather, RS reduce-scatter, "
                          "A2A all-to-all, SR send-recv (halo).\nWheel or W/S zoom around the cursor, drag or A/D "
                          "pan, F fits; click an event to select its op, a node header to fold it."));
    bar->addWidget(legend);
    view_ = new TimelineView(session_, this);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);

    connect(overlap_, &QCheckBox::toggled, this, [this](bool on) { session_->simulation().setOptions(SimOptions{on}); });
    connect(bucket_, &QSpinBox::editingFinished, this, [this] { session_->setBucketBytes(bucket_->value() * 1e6); });
    connect(session_, &Session::planChanged, this, [this] {
        const QSignalBlocker block(bucket_);
        bucket_->setValue(static_cast<int>(std::lround(session_->state().plan.settings.bucketBytes / 1e6)));
    });
    connect(fit, &QToolButton::clicked, view_, &TimelineView::fitAll);
    connect(session_, &Session::simulationChanged, this, &TimelinePanel::showSummary);
}

void TimelinePanel::showSummary() {
    const auto sim = session_->simulation().result();
    if (!sim) {
        summary_->setText(tr("simulating..."));
        return;
    }
    summary_->setText(tr("step %1: compute %2, exposed communication %3, peak %4%5")
                          .arg(seconds(sim->stepTime), seconds(sim->computeBusy), seconds(sim->exposedComm),
                               bytes(sim->peakMemory))
                          .arg(sim->classes.size() > 1 ? tr(", %1 device classes").arg(sim->classes.size()) : QString()));
}

} // namespace shardscope::ui
