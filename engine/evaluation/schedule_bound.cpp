#include "engine/evaluation/schedule_bound.h"

#include "engine/evaluation/step_passes.h"

#include <algorithm>

namespace shardscope {

double stepLowerBound(const CostModel& model, const Plan& plan, const Evaluation& e) {
    const double m = model.settings().microbatches;
    const PipelineLayout& layout = plan.pipeline;
    if (!layout.active()) {
        double passes = 0, optimizer = 0;
        for (const OpReport& r : e.perOp) {
            const ComputePath p = computePath(r, m);
            passes += p.forward + p.backward;
            optimizer += r.optimizerTime;
        }
        return m * passes + optimizer;
    }
    const int P = layout.stages;
    std::vector<ComputePath> chunks(std::size_t(layout.chunks()));
    std::vector<double> work(std::size_t(P), 0.0), optimizer(std::size_t(P), 0.0);
    for (const OpReport& r : e.perOp) {
        const int c = layout.chunkOf[r.op.index()];
        const ComputePath p = computePath(r, m);
        chunks[std::size_t(c)].forward += p.forward;
        chunks[std::size_t(c)].backward += p.backward;
        work[std::size_t(layout.stageOfChunk(c))] += p.forward + p.backward;
        optimizer[std::size_t(layout.stageOfChunk(c))] += r.optimizerTime;
    }
    double bound = 0, before = 0, after = 0; // before/after: chunks 0..s-1's forward and backward passes
    for (int s = 0; s < P; ++s) {
        const std::size_t i = std::size_t(s);
        bound = std::max(bound, before + m * work[i] + std::max(optimizer[i], after + optimizer[0]));
        before += chunks[i].forward;
        after += chunks[i].backward;
    }
    return bound;
}

double anyCutLowerBound(const CostModel& model, const Plan& plan, const Evaluation& e) {
    const double m = model.settings().microbatches;
    double passes = 0;
    for (const OpReport& r : e.perOp) {
        const ComputePath p = computePath(r, m);
        passes += p.forward + p.backward;
    }
    return m * passes / plan.pipeline.stages;
}

} // namespace shardscope
