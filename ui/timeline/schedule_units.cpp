#include "schedule_units.h"

#include "timeline_data.h"

namespace shardscope::ui {

std::vector<ScheduleUnit> scheduleUnits(const DeviceTimeline& line, const std::vector<int>& chunkOfOp) {
    std::vector<ScheduleUnit> units;
    for (const SimEvent& e : line.events) {
        if (e.stream != Stream::Compute || e.phase == Phase::Step)
            continue;
        const bool forward = e.phase == Phase::Forward;
        const int chunk = e.op.valid() && e.op.index() < chunkOfOp.size() ? chunkOfOp[e.op.index()] : 0;
        const double end = e.start + e.duration;
        if (!units.empty()) {
            ScheduleUnit& last = units.back();
            if (last.microbatch == e.microbatch && last.forward == forward && last.chunk == chunk) {
                last.span.end = std::max(last.span.end, end);
                continue;
            }
        }
        units.push_back(ScheduleUnit{e.microbatch, forward, chunk,
                                     Span{e.start, end, forward ? ForwardCompute : BackwardCompute}});
    }
    return units;
}

QString unitLabel(const ScheduleUnit& unit, bool severalChunks) {
    const QString text = (unit.forward ? QStringLiteral("F") : QStringLiteral("B")) + QString::number(unit.microbatch);
    return severalChunks ? text + QStringLiteral(".") + QString::number(unit.chunk) : text;
}

} // namespace shardscope::ui
