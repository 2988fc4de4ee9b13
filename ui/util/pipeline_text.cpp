#include "util/pipeline_text.h"

#include "util/qt_text.h"

#include <QCoreApplication>

namespace shardscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("PipelineText", text); }

} // namespace

QString pipelineSummary(const PipelineReport& p) {
    if (!p.active())
        return {};
    QString schedule = q(scheduleName(p.schedule));
    if (p.schedule == Schedule::Interleaved)
        schedule += QStringLiteral(" x %1").arg(p.virtualStages);
    return tr("%1 stages, %2, %3 micro-batches, bubble %4%")
        .arg(p.stages.size())
        .arg(schedule)
        .arg(p.microbatches)
        .arg(100 * p.bubbleFraction, 0, 'f', 1);
}

QString stageTable(const PipelineReport& p) {
    if (!p.active())
        return {};
    QString text = tr("Per micro-batch and stage (analytic):");
    for (const StageReport& s : p.stages)
        text += QStringLiteral("\n") + tr("stage %1: %2 (fwd %3, bwd %4, comm %5, send %6), peak %7 with %8 in flight%9")
                                         .arg(s.stage)
                                         .arg(seconds(s.perMicrobatch()), seconds(s.forward), seconds(s.backward),
                                              seconds(s.comm), seconds(s.transfer), bytes(s.peakMemory))
                                         .arg(s.inFlight, 0, 'g', 3)
                                         .arg(s.stage == p.slowest ? tr("  (slowest)") : QString());
    if (!p.balanced)
        text += QStringLiteral("\n") + tr("Uneven stages: the slowest sets the pace; the simulator runs the schedule exactly.");
    return text;
}

} // namespace shardscope::ui
