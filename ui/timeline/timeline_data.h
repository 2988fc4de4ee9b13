#pragma once
// A simulated step arranged for drawing: per device class and stream, the events as spans sorted
// by start, and where each op's events are. Devices of one class share their lanes' data, so 1024
// devices cost no more than one.

#include "lane_buckets.h"
#include "schedule_units.h"
#include "timeline_rows.h"

#include "engine/sim/simulator.h"

#include <array>
#include <map>
#include <memory>
#include <vector>

namespace shardscope::ui {

static_assert(int(Lane::Pipeline) == int(Stream::Pipeline) && kStreamCount == std::size_t(Lane::Schedule),
              "one lane per stream, in the streams' order");
/// The lane of the simulator's stream `s`.
constexpr Lane laneOf(Stream s) { return static_cast<Lane>(static_cast<int>(s)); }
/// The index of the stream behind `lane` (not Lane::Schedule) into ClassLanes' per-stream arrays.
constexpr std::size_t streamIndex(Lane lane) { return static_cast<std::size_t>(lane); }

/// Colour classes of timeline spans.
enum SpanKind { ForwardCompute, BackwardCompute, StepCompute, FirstCollective };
/// The span kind of a collective of kind `k`.
inline int collectiveSpanKind(CollectiveKind k) { return FirstCollective + static_cast<int>(k); }

/// One device class's lanes.
struct ClassLanes {
    std::array<std::vector<Span>, kStreamCount> spans;         ///< per stream (streamIndex), sorted by start
    std::array<std::vector<std::size_t>, kStreamCount> events; ///< per stream: index into the class's events
    std::array<std::map<int, std::vector<std::size_t>>, kStreamCount> spansOfOp; ///< per stream: op id -> span indices
    std::vector<ScheduleUnit> units;                      ///< pipelined: the schedule diagram's units, by start
    std::vector<Span> unitSpans;                          ///< their spans, for drawing and picking
    std::vector<StepPoint> memory;                        ///< bytes in use over time
    double peak = 0;                                      ///< the highest memory in use
    double peakTime = 0;                                  ///< its first moment
};

/// Everything the timeline draws.
struct TimelineData {
    std::shared_ptr<const SimResult> sim;
    std::vector<ClassLanes> classes;
    int devicesPerNode = 1;
    int devicesPerStage = 0;   ///< pipelined plans: devices of one stage; 0 without pipelining
    int virtualStages = 1;     ///< model chunks per stage
    /// The lanes each device shows: the schedule (pipelined), compute, then each communication stream
    /// that carries a collective somewhere in the step.
    std::vector<Lane> lanesShown;

    /// The lanes of `device`.
    const ClassLanes& lanes(int device) const {
        return classes[static_cast<std::size_t>(sim->classOfDevice[static_cast<std::size_t>(device)])];
    }
    /// The spans of `device`'s `lane` (Lane::Schedule: the schedule units').
    const std::vector<Span>& laneSpans(int device, Lane lane) const;
    /// The event behind span `index` of `device`'s stream lane `lane`.
    const SimEvent& event(int device, Lane lane, std::size_t index) const;
    /// True when the plan is pipelined (the lanes include the schedule diagram).
    bool pipelined() const { return devicesPerStage > 0; }
};

/// Arranges `sim` for drawing on a cluster of `devicesPerNode` devices per node. Pipelined plans:
/// `devicesPerStage` per stage (0 when the plan has no pipeline), each op's model chunk in
/// `chunkOfOp`, `virtualStages` chunks per stage.
std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const SimResult> sim, int devicesPerNode,
                                                      int devicesPerStage = 0, std::vector<int> chunkOfOp = {},
                                                      int virtualStages = 1);

} // namespace shardscope::ui
