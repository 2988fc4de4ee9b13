#include "timeline_data.h"

namespace shardscope::ui {

const SimEvent& TimelineData::event(int device, Lane lane, std::size_t index) const {
    const auto c = static_cast<std::size_t>(sim->classOfDevice[static_cast<std::size_t>(device)]);
    return sim->classes[c].events[classes[c].events[streamIndex(lane)][index]];
}

const std::vector<Span>& TimelineData::laneSpans(int device, Lane lane) const {
    const ClassLanes& l = lanes(device);
    return lane == Lane::Schedule ? l.unitSpans : l.spans[streamIndex(lane)];
}

std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const SimResult> sim, int devicesPerNode,
                                                      int devicesPerStage, std::vector<int> chunkOfOp, int virtualStages) {
    auto data = std::make_shared<TimelineData>();
    data->devicesPerNode = std::max(1, devicesPerNode);
    data->devicesPerStage = std::max(0, devicesPerStage);
    data->virtualStages = std::max(1, virtualStages);
    std::array<bool, kStreamCount> used{};
    used[streamIndex(Lane::Compute)] = true;
    for (const DeviceTimeline& line : sim->classes) {
        ClassLanes lanes;
        for (std::size_t i = 0; i < line.events.size(); ++i) {
            const SimEvent& e = line.events[i];
            const std::size_t stream = streamIndex(laneOf(e.stream));
            int kind = e.collective ? collectiveSpanKind(e.kind)
                                    : (e.phase == Phase::Forward ? ForwardCompute
                                                                 : e.phase == Phase::Backward ? BackwardCompute : StepCompute);
            lanes.spansOfOp[stream][e.op.value].push_back(lanes.spans[stream].size());
            lanes.spans[stream].push_back(Span{e.start, e.start + e.duration, kind});
            lanes.events[stream].push_back(i);
            used[stream] = true;
        }
        if (data->pipelined()) {
            lanes.units = scheduleUnits(line, chunkOfOp);
            for (const ScheduleUnit& u : lanes.units)
                lanes.unitSpans.push_back(u.span);
        }
        for (const MemorySample& m : line.memory) {
            lanes.memory.push_back(StepPoint{m.time, m.bytes});
            if (m.bytes > lanes.peak) {
                lanes.peak = m.bytes;
                lanes.peakTime = m.time;
            }
        }
        data->classes.push_back(std::move(lanes));
    }
    if (data->pipelined())
        data->lanesShown.push_back(Lane::Schedule);
    for (Stream s : kStreams)
        if (used[static_cast<std::size_t>(s)])
            data->lanesShown.push_back(laneOf(s));
    data->sim = std::move(sim);
    return data;
}

} // namespace shardscope::ui
