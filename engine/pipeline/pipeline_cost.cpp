#include "engine/pipeline/pipeline_cost.h"

#include <algorithm>
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
    double forwardComm = 0;  ///< of comm and transfer, the forward phase's
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
    }
    return s;
}

} // namespace

double activationsInFlight(const StepSettings& settings, int stages, int stage) {
    const int m = settings.microbatches;
    switch (settings.schedule) {
    case Schedule::GPipe:
        return m;
    case Schedule::OneFOneB:
        return std::min(stages - stage, m);
    case Schedule::Interleaved: {
        // Warm-up forwards plus the one in steady state, in chunks of 1/V of the stage (schedule_order.h);
        // stage 0 holds P (1 + (P-1)/(P V)) micro-batches, Megatron's figure.
        const int V = settings.virtualStages;
        return std::min(2 * (stages - stage - 1) + (V - 1) * stages + 1, m * V) / double(V);
    }
    }
    return m;
}

std::vector<CollectiveCost> boundaryCollectives(const CostModel& model, const Edge& edge, const OpStrategy& producer,
                                                Phase phase) {
    const Graph& g = model.graph();
    const Mesh& mesh = model.mesh();
    const Tensor& t = g.tensor(edge.tensor);
    const AxisSet split = outputSplitAxes(g.op(edge.from), edge.fromSlot, producer);
    const double bytes = t.bytes() / mesh.groupSize(split);
    const AxisSet replicated = mesh.stageAxes() & ~split;
    const double piece = bytes / mesh.groupSize(replicated);
    auto transfer = [&](CollectiveKind kind, AxisSet axes, double size) {
        CollectiveCost c;
        c.kind = kind;
        c.axes = axes;
        c.bytes = size;
        c.time = model.comm().time(kind, axes, size);
        c.bytesSent = model.comm().bytesSent(kind, axes, size);
        c.count = model.settings().microbatches;
        c.purpose = CommPurpose::StageTransfer;
        c.tensor = edge.tensor;
        c.phase = phase;
        return c;
    };
    std::vector<CollectiveCost> list{transfer(CollectiveKind::SendRecv, axisBit(*mesh.pipeAxis()), piece)};
    if (mesh.groupSize(replicated) > 1)
        list.push_back(transfer(CollectiveKind::AllGather, replicated, bytes));
    return list;
}

double boundaryTime(const CostModel& model, const Edge& edge, const OpStrategy& producer) {
    double total = 0;
    for (const CollectiveCost& c : boundaryCollectives(model, edge, producer, Phase::Forward))
        total += c.exposedTime();
    if (model.needsGradient(edge.tensor))
        for (const CollectiveCost& c : boundaryCollectives(model, edge, producer, Phase::Backward))
            total += c.exposedTime();
    return total;
}

std::vector<StageTransfer> stageTransfers(const CostModel& model, const Plan& plan) {
    const PipelineLayout& layout = plan.pipeline;
    std::vector<StageTransfer> out;
    std::map<std::pair<std::size_t, int>, bool> sent; // (tensor, destination chunk)
    for (const Edge& edge : model.edges()) {
        const int from = layout.chunkOf[edge.from.index()], to = layout.chunkOf[edge.to.index()];
        if (edge.parameterShare || from == to || !sent.emplace(std::make_pair(edge.tensor.index(), to), true).second)
            continue;
        const OpStrategy& producer = plan.ops[edge.from.index()].strategy;
        StageTransfer st{edge.from, edge.to, from, to, boundaryCollectives(model, edge, producer, Phase::Forward), {}};
        if (model.needsGradient(edge.tensor))
            st.backward = boundaryCollectives(model, edge, producer, Phase::Backward);
        out.push_back(std::move(st));
    }
    return out;
}

void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e) {
    for (const StageTransfer& t : stageTransfers(model, plan)) {
        auto& forward = e.perOp[t.from.index()].collectives;
        forward.insert(forward.end(), t.forward.begin(), t.forward.end());
        auto& backward = e.perOp[t.to.index()].collectives;
        backward.insert(backward.end(), t.backward.begin(), t.backward.end());
    }
}

void composePipeline(const CostModel& model, const Plan& plan, Evaluation& e) {
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
    std::vector<double> workspace(std::size_t(P), 0), commTotal(std::size_t(P), 0), stepComm(std::size_t(P), 0);
    double bytesSent = 0;
    for (const OpReport& r : e.perOp) {
        const std::size_t s = std::size_t(layout.stageOf(r.op));
        pipe.stageOfOp[r.op.index()] = int(s);
        StageReport& st = pipe.stages[s];
        const OpShare sh = share(r);
        ++st.ops;
        st.forward += r.forwardTime / m;
        st.backward += (r.backwardTime + r.recomputeTime) / m;
        st.comm += sh.comm / m;
        st.transfer += sh.transfer / m;
        st.forwardPass += (r.forwardTime + sh.forwardComm) / m;
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
    double slot = 0, work = 0;
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
        if (st.perMicrobatch() > slot) {
            slot = st.perMicrobatch();
            pipe.slowest = int(s);
        }
        work = std::max(work, st.stepWork);
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
    double busy = 0, fill = 0;
    if (settings.schedule == Schedule::GPipe) {
        const auto [fwdBusy, fwdFill] = framed([](const StageReport& st) { return st.forwardPass; });
        const auto [bwdBusy, bwdFill] = framed([](const StageReport& st) { return st.perMicrobatch() - st.forwardPass; });
        busy = fwdBusy + bwdBusy;
        fill = fwdFill + bwdFill;
    } else {
        std::tie(busy, fill) = framed([](const StageReport& st) { return st.perMicrobatch(); });
    }
    pipe.bubbleFraction = fill / (busy + fill);
    pipe.balanced = std::all_of(pipe.stages.begin(), pipe.stages.end(),
                                [&](const StageReport& st) { return st.perMicrobatch() >= 0.99 * slot; });
    const StageReport& slow = pipe.stages[std::size_t(pipe.slowest)];
    e.stepTime = busy + fill + work;
    e.computeTime = m * (slow.forward + slow.backward);
    e.exposedCommTime = m * (slow.comm + slow.transfer) + (slow.stepWork - slow.optimizer);
    e.commTime = commTotal[std::size_t(pipe.slowest)];
    e.optimizerTime = slow.optimizer;
    e.bubbleTime = std::max(0.0, e.stepTime - e.computeTime - e.exposedCommTime - e.optimizerTime);
    e.commBytesPerDevice = bytesSent / P;
    const auto peak = std::max_element(pipe.stages.begin(), pipe.stages.end(),
                                       [](const StageReport& a, const StageReport& b) { return a.peakMemory < b.peakMemory; });
    e.memory = peak->memory;
    e.buffers = peak->buffers;
    e.peakMemory = peak->peakMemory;
    e.feasible = std::all_of(pipe.stages.begin(), pipe.stages.end(), [](const StageReport& st) { return st.feasible; });
}

} // namespace shardscope
