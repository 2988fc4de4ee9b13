#pragma once
// What both simulators (simulator.h, pipeline_simulator.h) do per task on one timeline: time a
// communication task and count its bytes per link level, track memory as tasks save and free
// activations, and close the timeline at the end.

#include "engine/cost/collectives.h"
#include "engine/sim/link_traffic.h"
#include "engine/sim/simulator.h"

#include <map>
#include <vector>

namespace shardscope {

/// Bytes sent per link level, per set of communicating axes.
using LevelBytes = std::map<AxisSet, std::vector<double>>;

/// The clocks of one timeline while a program runs.
struct TimelineClock {
    double streamFree[2] = {0, 0};
    double last = 0;   ///< end of the latest task (overlap off waits for it)
    double live = 0;   ///< activation bytes saved
    double peak = 0;   ///< memory in use at its highest so far
};

/// Seconds communication task `t` takes on `comm`'s devices; adds its bytes to `levelBytes`, or with
/// `sends` its point-to-point sends there (forward or backward by the task's phase).
double timeCommTask(const CommModel& comm, const SimTask& t, LevelBytes& levelBytes, StageSends* sends = nullptr);

/// After task `t` ends at `end`: its activations saved or freed, memory sampled (over `resident`).
void recordMemory(const SimTask& t, double end, double resident, TimelineClock& clock, DeviceTimeline& line);

/// Ends `line`: its step time, its events ordered by start.
void closeTimeline(const TimelineClock& clock, DeviceTimeline& line);

} // namespace shardscope
