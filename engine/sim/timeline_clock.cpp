#include "engine/sim/timeline_clock.h"

#include <algorithm>

namespace shardscope {

double timeCommTask(const CommModel& comm, const SimTask& t, LevelBytes& levelBytes, StageSends* sends) {
    double duration = 0;
    for (const CommPart& p : t.parts) {
        duration += comm.coalescedTime(p.kind, p.axes, p.bytes, p.bucket) * p.times;
        if (sends && p.kind == CollectiveKind::SendRecv) {
            (t.event.phase == Phase::Backward ? sends->backward : sends->forward) += comm.bytesSent(p.kind, p.axes, p.bytes) * p.times;
            continue;
        }
        const auto perLevel = comm.bytesPerLevel(p.kind, p.axes, p.bytes);
        auto& sum = levelBytes[p.axes];
        sum.resize(perLevel.size(), 0.0);
        for (std::size_t l = 0; l < perLevel.size(); ++l)
            sum[l] += perLevel[l] * p.times;
    }
    return duration;
}

void recordMemory(const SimTask& t, double end, double resident, TimelineClock& clock, DeviceTimeline& line) {
    if (t.allocate <= 0 && t.release <= 0)
        return;
    clock.live += t.allocate - t.release;
    const double now = resident + clock.live;
    line.memory.push_back({end, now});
    if (now > clock.peak) {
        clock.peak = now;
        line.peakMemoryTime = end;
    }
}

void closeTimeline(const TimelineClock& clock, DeviceTimeline& line) {
    line.stepTime = clock.last;
    std::stable_sort(line.events.begin(), line.events.end(),
                     [](const SimEvent& a, const SimEvent& b) { return a.start < b.start; });
}

} // namespace shardscope
