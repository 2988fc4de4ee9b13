#include "engine/pipeline/schedule_order.h"

#include <algorithm>

namespace shardscope {

std::vector<PipelineUnit> stageOrder(const StepSettings& settings, int stages, int stage) {
    const int m = settings.microbatches, P = stages;
    std::vector<PipelineUnit> order;
    if (settings.schedule == Schedule::GPipe) {
        for (int j = 0; j < m; ++j)
            order.push_back({true, stage, j});
        for (int j = 0; j < m; ++j)
            order.push_back({false, stage, j});
        return order;
    }
    const bool interleaved = settings.schedule == Schedule::Interleaved;
    const int V = interleaved ? settings.virtualStages : 1;
    const int total = m * V;
    // Unit k of the forward (or backward) sequence.
    auto unit = [&](int k, bool forward) {
        if (!interleaved)
            return PipelineUnit{forward, stage, k};
        const int inGroup = k % (P * V);
        const int local = inGroup / P;
        const int v = forward ? local : V - 1 - local;
        return PipelineUnit{forward, v * P + stage, (k / (P * V)) * P + k % P};
    };
    const int warmup = std::min(interleaved ? (P - stage - 1) * 2 + (V - 1) * P : P - stage - 1, total);
    for (int k = 0; k < warmup; ++k)
        order.push_back(unit(k, true));
    for (int i = 0; i + warmup < total; ++i) {
        order.push_back(unit(warmup + i, true));
        order.push_back(unit(i, false));
    }
    for (int k = std::max(0, total - warmup); k < total; ++k)
        order.push_back(unit(k, false));
    return order;
}

} // namespace shardscope
