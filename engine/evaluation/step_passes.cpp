#include "engine/evaluation/step_passes.h"

#include "engine/cost/comm_streams.h"

#include <algorithm>
#include <cmath>

namespace shardscope {

namespace {

/// Places tensor-stream collective `c` (blocking) around its op's forward `f` and backward `b`.
void addBlocking(const CollectiveCost& c, double m, PassOp& f, PassOp& b) {
    const double exposed = c.time - c.hidden;
    if (c.purpose == CommPurpose::Resharding && c.phase == Phase::Forward) {
        // Once before the forward; again before the recomputation when it is recomputed.
        const double perMicrobatch = std::max(1.0, std::round(c.count / m));
        f.before += exposed;
        b.before += (perMicrobatch - 1) * exposed;
    } else if (c.purpose == CommPurpose::Statistics) {
        (c.phase == Phase::Forward ? f.after : b.after) += exposed;
    } else if (c.phase == Phase::Forward) {
        f.before += exposed; // a halo before the compute
    } else {
        b.after += exposed;  // the gradient's resharding, re-gathers, backward halos
    }
}

} // namespace

ComputePath computePath(const OpReport& r, double m) {
    PassOp f, b;
    for (const CollectiveCost& c : r.collectives)
        if (streamOf(c) == Stream::Tensor)
            addBlocking(c, m, f, b);
    return {f.before + r.forwardTime / m + f.after, b.before + (r.backwardTime + r.recomputeTime) / m + b.after};
}

StepPasses stepPasses(const CostModel& model, const std::vector<OpReport>& perOp, const std::vector<OpId>& order) {
    const double m = model.settings().microbatches;
    const std::size_t n = order.size();
    StepPasses p;
    p.forward.resize(n);
    p.backward.resize(n);
    p.firstGather.assign(n, LinkWork{});
    p.lastReduce.assign(n, LinkWork{});
    p.lastReduceBytes.assign(n, 0.0);
    p.bucketBytes = model.settings().bucketBytes;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const OpReport& r = perOp[order[i].index()];
        PassOp& f = p.forward[i];
        PassOp& b = p.backward[n - 1 - i];
        f.work = r.forwardTime / m;
        b.work = (r.backwardTime + r.recomputeTime) / m;
        f.working = b.working = r.transient - r.prefetchRoom;
        p.workspace = std::max(p.workspace, r.transient);
        double busiest = -1;
        for (const CollectiveCost& c : r.collectives) {
            const LinkWork work{c.time, c.latency};
            switch (streamOf(c)) {
            case Stream::Gather:
                if (c.phase == Phase::Step) {
                    p.firstGather[i] += work;
                } else {
                    PassOp& op = c.phase == Phase::Forward ? f : b;
                    op.gather += work;
                    op.gatherBytes += c.bytes;
                }
                break;
            case Stream::Reduce:
                if (c.phase == Phase::Step) {
                    p.lastReduce[n - 1 - i] += work;
                    p.lastReduceBytes[n - 1 - i] += c.bytes;
                } else {
                    b.reduce += work;
                }
                break;
            case Stream::Tensor:
                addBlocking(c, m, f, b);
                break;
            case Stream::Pipeline:
            case Stream::Compute:
                break;
            }
            if (isBackground(streamOf(c)) && c.time > busiest) {
                busiest = c.time;
                f.level = b.level = model.comm().slowestLevel(c.axes);
            }
        }
        p.optimizer += r.optimizerTime;
    }
    return p;
}

} // namespace shardscope
