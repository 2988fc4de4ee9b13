#include "engine/evaluation/pipeline_composition.h"

#include "engine/evaluation/schedule_bound.h"
#include "engine/evaluation/schedule_composition.h"
#include "engine/evaluation/step_passes.h"
#include "engine/pipeline/pipeline_cost.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace shardscope {

namespace {

/// The schedule's chunks per device in its bubble: V for the interleaved schedule, else 1.
double bubbleDivisor(const StepSettings& s) {
    return s.schedule == Schedule::Interleaved ? double(s.virtualStages) : 1.0;
}

/// Seconds per step of what runs every micro-batch (`perMicrobatch`) and once per step, of one op.
struct OpShare {
    double comm = 0, transfer = 0, stepComm = 0, commTotal = 0;
    double forwardComm = 0;     ///< of comm and transfer, the forward phase's
    double forwardTransfer = 0; ///< of transfer, the forward phase's
};

OpShare share(const OpReport& r) {
    OpShare s;
    for (const CollectiveCost& c : r.collectives) {
        s.commTotal += c.totalTime();
        if (c.purpose == CommPurpose::StageTransfer)
            s.transfer += c.exposedTime();
        else if (c.phase == Phase::Step)
            s.stepComm += c.exposedTime();
        else
            s.comm += c.exposedTime();
        if (c.phase == Phase::Forward)
            s.forwardComm += c.exposedTime();
        if (c.phase == Phase::Forward && c.purpose == CommPurpose::StageTransfer)
            s.forwardTransfer += c.exposedTime();
    }
    return s;
}

/// With overlap, `st`'s micro-batch and once-per-step work composed by the streams' rules over its ops
/// `ops` (forward order): the background collectives of one op run beside the compute of others.
/// `forwardTransfer`: the stage's forward sends per micro-batch.
void composeStage(const CostModel& model, const Evaluation& e, const std::vector<OpId>& ops, double forwardTransfer,
                  StageReport& st, double& stepComm) {
    const StepPasses passes = stepPasses(model, e.perOp, ops);
    const std::size_t levels = model.comm().levelCount();
    const double slowdown = model.cluster().device.overlapSlowdown;
    const int m = model.settings().microbatches;
    const ComposedStep step = composeStep(passes, m, levels, true, slowdown);
    const double full = step.stepTime;
    // The steady micro-batch of the step itself, or (too few micro-batches to reach it) of its own.
    const ComposedCycle cycle =
        step.steady.forward + step.steady.backward > 0 ? step.steady : composeCycle(passes, levels, slowdown);
    st.slowdown = cycle.forwardCompute + cycle.backwardCompute - st.forward - st.backward;
    st.comm = cycle.forward + cycle.backward - cycle.forwardCompute - cycle.backwardCompute;
    st.forwardPass = cycle.forward + forwardTransfer;
    stepComm = std::max(0.0, full - passes.optimizer - m * (cycle.forward + cycle.backward));
}

} // namespace

void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e) {
    for (const StageTransfer& t : stageTransfers(model, plan)) {
        auto& forward = e.perOp[t.from.index()].collectives;
        forward.insert(forward.end(), t.forward.begin(), t.forward.end());
        auto& backward = e.perOp[t.to.index()].collectives;
        backward.insert(backward.end(), t.backward.begin(), t.backward.end());
    }
}

void composePipeline(const CostModel& model, const Plan& plan, Evaluation& e, Composition composition,
                     EvaluationDetail detail, double cutoff) {
    const Graph& g = model.graph();
    const PipelineLayout& layout = plan.pipeline;
    const StepSettings& settings = model.settings();
    const int P = layout.stages;
    const double m = settings.microbatches;
    PipelineReport& pipe = e.pipeline;
    pipe.schedule = settings.schedule;
    pipe.virtualStages = layout.virtualStages;
    pipe.microbatches = settings.microbatches;
    pipe.stages.assign(std::size_t(P), StageReport{});
    pipe.stageOfOp.assign(g.ops().size(), 0);
    std::vector<int> blocks(std::size_t(P), 0);
    for (int c = 0; c < layout.chunks(); ++c) {
        pipe.stages[std::size_t(layout.stageOfChunk(c))].chunks.push_back(c);
        blocks[std::size_t(layout.stageOfChunk(c))] += layout.chunkBlocks[std::size_t(c)];
    }
    int totalBlocks = 0;
    for (int b : blocks)
        totalBlocks += b;
    std::vector<double> workspace(std::size_t(P), 0), commTotal(std::size_t(P), 0), stepComm(std::size_t(P), 0),
        forwardTransfer(std::size_t(P), 0);
    std::vector<std::vector<OpId>> stageOps(static_cast<std::size_t>(P));
    for (OpId o : g.topoOrder())
        stageOps[std::size_t(layout.stageOf(o))].push_back(o);
    double bytesSent = 0;
    for (const OpReport& r : e.perOp) {
        const std::size_t s = std::size_t(layout.stageOf(r.op));
        pipe.stageOfOp[r.op.index()] = int(s);
        StageReport& st = pipe.stages[s];
        const OpShare sh = share(r);
        ++st.ops;
        st.forward += r.forwardTime / m;
        st.backward += (r.backwardTime + r.recomputeTime) / m;
        st.slowdown += r.slowdownTime / m;
        st.comm += sh.comm / m;
        st.transfer += sh.transfer / m;
        st.forwardPass += (r.forwardTime + r.forwardSlowdown + sh.forwardComm) / m;
        forwardTransfer[s] += sh.forwardTransfer / m;
        stepComm[s] += sh.stepComm;
        commTotal[s] += sh.commTotal;
        st.optimizer += r.optimizerTime;
        st.memory.parameters += r.memory.parameters;
        st.memory.gradients += r.memory.gradients;
        st.memory.optimizer += r.memory.optimizer;
        st.memory.activations += r.memory.activations - r.activationWorkspace;
        workspace[s] += r.activationWorkspace;
        st.buffers = std::max(st.buffers, r.transient);
        for (const CollectiveCost& c : r.collectives) {
            bytesSent += c.bytesSent * c.count;
            if (c.purpose == CommPurpose::StageTransfer)
                st.transferBytes += c.bytesSent;
        }
    }
    for (std::size_t s = 0; s < pipe.stages.size(); ++s) {
        StageReport& st = pipe.stages[s];
        st.stage = int(s);
        st.stepWork = st.optimizer + stepComm[s];
        st.inFlight = activationsInFlight(settings, P, int(s));
        // Each op carries 1/blocks of one block's recompute working set; a stage recomputes one
        // block at a time, so it holds one block's whole, however many of the blocks it runs.
        const double oneBlock = blocks[s] > 0 ? workspace[s] * totalBlocks / blocks[s] : 0;
        st.memory.activations = st.memory.activations * st.inFlight + oneBlock;
        st.peakMemory = st.memory.sum() + st.buffers;
        st.feasible = st.peakMemory <= e.memoryCapacity;
    }
    // The slowest stage runs its m micro-batches back to back; the others' time is the fill and the
    // drain around it, one chunk's worth (1/V') each. GPipe runs every forward before any backward,
    // so its two passes are paced apart, each by its own slowest stage.
    auto framed = [&](auto part) {
        double sum = 0, most = 0;
        for (const StageReport& st : pipe.stages) {
            sum += part(st);
            most = std::max(most, part(st));
        }
        return std::pair{m * most, (sum - most) / bubbleDivisor(settings)};
    };
    double busy = 0, fill = 0, work = 0;
    auto schedule = [&] {
        double slot = 0;
        work = 0;
        for (const StageReport& st : pipe.stages) {
            if (st.perMicrobatch() > slot) {
                slot = st.perMicrobatch();
                pipe.slowest = st.stage;
            }
            work = std::max(work, st.stepWork);
        }
        if (settings.schedule == Schedule::GPipe) {
            const auto [fwdBusy, fwdFill] = framed([](const StageReport& st) { return st.forwardPass; });
            const auto [bwdBusy, bwdFill] =
                framed([](const StageReport& st) { return st.perMicrobatch() - st.forwardPass; });
            busy = fwdBusy + bwdBusy;
            fill = fwdFill + bwdFill;
        } else {
            std::tie(busy, fill) = framed([](const StageReport& st) { return st.perMicrobatch(); });
        }
        pipe.balanced = std::all_of(pipe.stages.begin(), pipe.stages.end(),
                                    [&](const StageReport& st) { return st.perMicrobatch() >= 0.99 * slot; });
        return busy + fill + work;
    };
    // The search's objective: each stage's ops summed, each collective behind its own op's compute.
    e.objective = schedule();
    e.stepTime = e.objective;
    if (composition == Composition::Streams) {
        // The stages' figures per micro-batch as the streams compose them (for the report: a score
        // reads the step alone); the step unit by unit.
        if (settings.overlap && detail == EvaluationDetail::Full)
            for (std::size_t s = 0; s < pipe.stages.size(); ++s) {
                StageReport& st = pipe.stages[s];
                composeStage(model, e, stageOps[s], forwardTransfer[s], st, stepComm[s]);
                st.stepWork = st.optimizer + stepComm[s];
            }
        schedule();
        // Within a cutoff (the best step that fits), a plan that does not fit cannot be preferred
        // either: its bound is enough.
        const bool fits = std::all_of(pipe.stages.begin(), pipe.stages.end(), [](const StageReport& st) { return st.feasible; });
        const double lower = std::isinf(cutoff) ? 0.0 : stepLowerBound(model, plan, e);
        e.stepIsBound = !std::isinf(cutoff) && (lower >= cutoff || !fits);
        e.stepTime = e.stepIsBound ? lower : composeSchedule(model, plan, e);
    }
    pipe.bubbleFraction = fill / (busy + fill);
    const StageReport& slow = pipe.stages[std::size_t(pipe.slowest)];
    e.computeTime = m * (slow.forward + slow.backward);
    e.slowdownTime = m * slow.slowdown;
    e.exposedCommTime = m * (slow.comm + slow.transfer) + (slow.stepWork - slow.optimizer);
    e.commTime = commTotal[std::size_t(pipe.slowest)];
    e.optimizerTime = slow.optimizer;
    e.bubbleTime = std::max(0.0, e.stepTime - e.computeTime - e.slowdownTime - e.exposedCommTime - e.optimizerTime);
    e.commBytesPerDevice = bytesSent / P;
    const auto peak = std::max_element(pipe.stages.begin(), pipe.stages.end(),
                                       [](const StageReport& a, const StageReport& b) { return a.peakMemory < b.peakMemory; });
    e.memory = peak->memory;
    e.buffers = peak->buffers;
    e.peakMemory = peak->peakMemory;
    e.feasible = std::all_of(pipe.stages.begin(), pipe.stages.end(), [](const StageReport& st) { return st.feasible; });
}

} // namespace shardscope
