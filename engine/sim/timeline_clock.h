#pragma once
// What both simulators (simulator.h, pipeline_simulator.h) share about one timeline's bookkeeping.

#include "engine/cluster/mesh.h"
#include "engine/sim/simulator.h"

#include <map>
#include <vector>

namespace shardscope {

/// Bytes sent per link level, per set of communicating axes.
using LevelBytes = std::map<AxisSet, std::vector<double>>;

/// Ends `line`: its events ordered by start, then by task.
void closeTimeline(DeviceTimeline& line);

struct EngineRun;

/// Moves the lines of `run` into `result`'s classes (line i's timeline stands for `members[i]`, its
/// events ordered) with the step's figures (the slowest line's step, the busiest line's
/// communication, the highest peak); each line's bytes per level go to `levelBytes` and its
/// point-to-point sends to `sends`.
void collectLines(EngineRun& run, const std::vector<std::vector<int>>& members, SimResult& result,
                  std::vector<LevelBytes>& levelBytes, std::vector<StageSends>& sends);

} // namespace shardscope
