#pragma once
// A pipelined step as the schedule diagram draws it: per device class, the runs of compute that
// belong to one micro-batch's forward or backward through one model chunk ("F3", "B3"), with the
// gaps between them the pipeline's bubbles. Plain logic, tested on its own.

#include "lane_buckets.h"

#include "engine/sim/simulator.h"

#include <QString>

#include <vector>

namespace shardscope::ui {

/// One micro-batch's forward or backward through one chunk on one device.
struct ScheduleUnit {
    int microbatch = 0;
    bool forward = true;
    int chunk = 0;       ///< the model chunk (interleaved: one of the stage's V)
    Span span;           ///< from its first compute event's start to its last's end; kind Forward/BackwardCompute
};

/// The units of `line`'s compute stream: consecutive forward or backward compute events of the same
/// micro-batch and chunk (chunk per op from `chunkOfOp`) form one unit; step-phase work (the optimizer)
/// belongs to none. Sorted by start.
std::vector<ScheduleUnit> scheduleUnits(const DeviceTimeline& line, const std::vector<int>& chunkOfOp);

/// "F3" / "B3", with the chunk when the stage runs several ("F3.1"): what the diagram writes on a unit.
QString unitLabel(const ScheduleUnit& unit, bool severalChunks);

} // namespace shardscope::ui
