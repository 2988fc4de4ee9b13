#include "engine/evaluation/evaluation.h"

#include "engine/evaluation/pipeline_composition.h"
#include "engine/evaluation/schedule_bound.h"
#include "engine/evaluation/step_passes.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>

namespace shardscope {

namespace {

std::string overflowMessage(const Evaluation& e, const Graph& g) {
    std::string stage;
    if (e.pipeline.active())
        for (const StageReport& s : e.pipeline.stages)
            if (s.peakMemory == e.peakMemory) {
                char inFlight[32];
                std::snprintf(inFlight, sizeof inFlight, "%.3g", s.inFlight);
                stage = "stage " + std::to_string(s.stage) + " of " + std::to_string(e.pipeline.stages.size()) +
                        " (activations of " + inFlight + " micro-batches in flight): ";
                break;
            }
    std::string msg = stage + "peak memory " + formatBytes(e.peakMemory) + " per device exceeds " +
                      formatBytes(e.memoryCapacity) + ": parameters " + formatBytes(e.memory.parameters) +
                      ", gradients " + formatBytes(e.memory.gradients) + ", optimizer state " +
                      formatBytes(e.memory.optimizer) + ", activations " + formatBytes(e.memory.activations) +
                      ", buffers " + formatBytes(e.buffers);
    std::vector<std::size_t> order;
    for (std::size_t o = 0; o < e.perOp.size(); ++o)
        if (!e.pipeline.active() || e.pipeline.stages[std::size_t(e.pipeline.stageOfOp[o])].peakMemory == e.peakMemory)
            order.push_back(o);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double ma = e.perOp[a].memory.sum(), mb = e.perOp[b].memory.sum();
        return ma != mb ? ma > mb : a < b;
    });
    msg += "; largest: ";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i) {
        const OpReport& r = e.perOp[order[i]];
        const Op& op = g.op(r.op);
        // Its largest weight (not a bias beside it) when the weights' terms outweigh its activations,
        // else the op itself.
        std::string what = op.name;
        double weight = 0;
        for (TensorId t : op.inputs)
            if (g.tensor(t).role == TensorRole::Parameter && r.memory.parameters > r.memory.activations &&
                g.tensor(t).elements() > weight) {
                what = g.tensor(t).name;
                weight = g.tensor(t).elements();
            }
        msg += (i ? ", " : "") + what + " (" + formatBytes(r.memory.sum()) + ")";
    }
    return msg;
}

} // namespace

std::shared_ptr<const Evaluation> evaluate(const CostModel& model, const Plan& plan, const RepeatedBlocks* folded,
                                          EvaluationDetail detail, Composition composition, double cutoff) {
    const bool full = detail == EvaluationDetail::Full;
    const Graph& g = model.graph();
    // Folding prices block 1 once for every block that repeats it; a plan whose blocks differ (a
    // solve's boundary path may change along the stack) is priced op by op.
    if (folded && !plan.repeats(*folded))
        folded = nullptr;
    // With `folded`, an op of block 2 or later costs what its twin in block 1 costs.
    auto twin = [folded](OpId o) { return folded ? folded->twin(o) : o; };
    // Scoring a folded plan, blocks 3 and later repeat block 2 whole: its ops' costs and the edges into
    // them (which leave a copy of block 1). Their reports are copied once both are known.
    const bool copiesBlock2 = !full && folded && folded->count() > 3;
    auto copied = [&](OpId o) { return copiesBlock2 && folded->blockOf[o.index()] >= 3; };
    auto e = std::make_shared<Evaluation>();
    e->planName = plan.name;
    e->mesh = model.mesh();
    e->devices = model.mesh().deviceCount();
    if (full)
        e->paramsTotal = g.parameterCount();
    e->memoryCapacity = model.cluster().device.memoryBytes;
    const int m = model.settings().microbatches;
    e->perOp.resize(g.ops().size());
    for (OpId o : g.topoOrder()) {
        if (full)
            e->flopsPerStep += m * (g.forwardFlops(o) + model.backwardFlops(o));
        if (copied(o))
            continue;
        if (twin(o) != o) {
            e->perOp[o.index()] = e->perOp[twin(o).index()];
            e->perOp[o.index()].op = o;
            continue;
        }
        OpCost c = model.opCost(o, plan.ops[o.index()].strategy);
        OpReport& r = e->perOp[o.index()];
        r.op = o;
        if (full)
            r.strategy = plan.ops[o.index()].strategy.toString(g.op(o).rule, model.mesh());
        r.forwardTime = c.forward;
        r.backwardTime = c.backward;
        r.recomputeTime = c.recompute;
        r.forwardSlowdown = c.forwardSlowdown;
        r.backwardSlowdown = c.backwardSlowdown;
        r.computeTime = c.computeTime();
        r.slowdownTime = c.slowdownTime();
        r.activationWorkspace = c.activationWorkspace;
        r.optimizerTime = c.optimizer;
        r.collectives = std::move(c.collectives);
        r.memory = c.memory;
        r.transient = c.transient;
        r.prefetchRoom = c.prefetchRoom;
    }
    // Edges into block 3 or later repeat an edge into block 2 (both leave a copy of block 1).
    using EdgeKey = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, bool>;
    std::map<EdgeKey, EdgeCost> repeated;
    for (const Edge& edge : model.edges()) {
        if (copied(edge.to))
            continue;
        const bool repeats = twin(edge.to) != edge.to;
        const EdgeKey key{twin(edge.from).index(), twin(edge.to).index(), edge.fromSlot, edge.toInput, edge.parameterShare};
        auto known = repeats ? repeated.find(key) : repeated.end();
        EdgeCost priced;
        if (known == repeated.end())
            priced = model.edgeCost(edge, plan.ops[edge.from.index()].strategy, plan.ops[edge.to.index()].strategy);
        if (repeats && known == repeated.end())
            known = repeated.emplace(key, priced).first;
        const EdgeCost& c = known != repeated.end() ? known->second : priced;
        OpReport& r = e->perOp[edge.to.index()];
        r.collectives.insert(r.collectives.end(), c.collectives.begin(), c.collectives.end());
        if (!full)
            continue;
        EdgeReport er{edge.from, edge.to, edge.tensor, c.collectives, c.time(), 0};
        for (const CollectiveCost& cc : c.collectives)
            er.bytesSent += cc.bytesSent * cc.count;
        e->perEdge.push_back(std::move(er));
    }
    if (copiesBlock2)
        for (std::size_t b = 3; b < folded->blocks.size(); ++b)
            for (std::size_t q = 0; q < folded->blocks[b].size(); ++q) {
                const OpId o = folded->blocks[b][q];
                e->perOp[o.index()] = e->perOp[folded->blocks[2][q].index()];
                e->perOp[o.index()].op = o;
            }
    if (plan.pipeline.active())
        addStageTransfers(model, plan, *e);
    for (OpReport& r : e->perOp) {
        for (const CollectiveCost& c : r.collectives) {
            r.commTime += c.totalTime();
            r.exposedCommTime += c.exposedTime();
            e->commBytesPerDevice += c.bytesSent * c.count;
        }
        e->computeTime += r.computeTime;
        e->slowdownTime += r.slowdownTime;
        e->commTime += r.commTime;
        e->exposedCommTime += r.exposedCommTime;
        e->optimizerTime += r.optimizerTime;
        e->memory += r.memory;
        e->buffers = std::max(e->buffers, r.transient);
    }
    e->stepTime = e->computeTime + e->slowdownTime + e->exposedCommTime + e->optimizerTime;
    e->objective = e->stepTime;
    e->peakMemory = e->memory.sum() + e->buffers;
    e->feasible = e->peakMemory <= e->memoryCapacity;
    const bool composed = composition == Composition::Streams && model.settings().overlap && !plan.pipeline.active();
    const double lower = composed && !std::isinf(cutoff) ? stepLowerBound(model, plan, *e) : 0.0;
    // Within a cutoff (the best step that fits), a plan that does not fit cannot be preferred either.
    if (composed && !std::isinf(cutoff) && (lower >= cutoff || !e->feasible)) {
        e->stepTime = lower;
        e->stepIsBound = true;
    } else if (composed) {
        // The streams run beside each other across ops: composed, not summed per op.
        const ComposedStep step = composeStep(stepPasses(model, e->perOp, g.topoOrder()), m,
                                              model.comm().levelCount(), true, model.cluster().device.overlapSlowdown);
        e->stepTime = step.stepTime;
        e->slowdownTime = step.computeTime - e->computeTime;
        e->exposedCommTime = e->stepTime - step.computeTime - e->optimizerTime;
    }
    if (plan.pipeline.active())
        composePipeline(model, plan, *e, composition, detail, cutoff);
    if (!e->feasible && full)
        e->overflow = overflowMessage(*e, g);
    return e;
}

} // namespace shardscope
