#include "engine/sim/timeline_clock.h"

#include "engine/sim/event_engine.h"

#include <algorithm>

namespace shardscope {

void closeTimeline(DeviceTimeline& line) {
    std::sort(line.events.begin(), line.events.end(), [](const SimEvent& a, const SimEvent& b) {
        return a.start != b.start ? a.start < b.start : a.task < b.task;
    });
}

void collectLines(EngineRun& run, const std::vector<std::vector<int>>& members, SimResult& result,
                  std::vector<LevelBytes>& levelBytes, std::vector<StageSends>& sends) {
    result.cancelled = run.cancelled;
    for (std::size_t i = 0; i < run.lines.size(); ++i) {
        LineRun& line = run.lines[i];
        DeviceTimeline timeline = std::move(line.timeline);
        timeline.devices = members[i];
        closeTimeline(timeline);
        result.stepTime = std::max(result.stepTime, timeline.stepTime);
        result.commBusy = std::max(result.commBusy, timeline.commBusy);
        result.computeBusy = std::max(result.computeBusy, line.computeBusy);
        result.peakMemory = std::max(result.peakMemory, line.peak);
        levelBytes.push_back(std::move(line.levelBytes));
        sends.push_back(line.sends);
        result.classes.push_back(std::move(timeline));
    }
    result.peakMemoryTime = result.classes.front().peakMemoryTime;
    result.exposedComm = result.stepTime - result.computeBusy;
}

} // namespace shardscope
