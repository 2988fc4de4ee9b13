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
    case Schedule::Interleaved:
        return std::min(stages - stage, m) *
               (1.0 + double(stages - 1) / (double(stages) * settings.virtualStages));
    }
    return m;
}

void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e) {
    const Graph& g = model.graph();
    const Mesh& mesh = model.mesh();
    const PipelineLayout& layout = plan.pipeline;
    const AxisSet pipe = axisBit(*mesh.pipeAxis());
    const int m = model.settings().microbatches;
    std::map<std::pair<std::size_t, int>, bool> sent; // (tensor, destination chunk)
    for (const Edge& edge : model.edges()) {
        const int from = layout.chunkOf[edge.from.index()], to = layout.chunkOf[edge.to.index()];
        if (edge.parameterShare || from == to || !sent.emplace(std::make_pair(edge.tensor.index(), to), true).second)
            continue;
        const Op& producer = g.op(edge.from);
        const Tensor& t = g.tensor(edge.tensor);
        const AxisSet split = outputSplitAxes(producer, edge.fromSlot, plan.strategies[edge.from.index()]);
        const double bytes = t.bytes() / mesh.groupSize(split);
        // A tensor replicated over some stage axes is sent in 1/r pieces, one per replica, and
        // all-gathered on arrival (Megatron's scatter-gather of pipeline tensors): r sends of a
        // shard in parallel instead of r copies of the whole.
        const AxisSet replicated = mesh.stageAxes() & ~split;
        const double piece = bytes / mesh.groupSize(replicated);
        auto transfer = [&](CollectiveKind kind, AxisSet axes, double size, Phase phase) {
            CollectiveCost c;
            c.kind = kind;
            c.axes = axes;
            c.bytes = size;
            c.time = model.comm().time(kind, axes, size);
            c.bytesSent = model.comm().bytesSent(kind, axes, size);
            c.count = m;
            c.purpose = CommPurpose::StageTransfer;
            c.tensor = edge.tensor;
            c.phase = phase;
            return c;
        };
        auto& forward = e.perOp[edge.from.index()].collectives;
        forward.push_back(transfer(CollectiveKind::SendRecv, pipe, piece, Phase::Forward));
        if (replicated && mesh.groupSize(replicated) > 1)
            forward.push_back(transfer(CollectiveKind::AllGather, replicated, bytes, Phase::Forward));
        if (model.needsGradient(edge.tensor)) {
            auto& backward = e.perOp[edge.to.index()].collectives;
            backward.push_back(transfer(CollectiveKind::SendRecv, pipe, piece, Phase::Backward));
            if (replicated && mesh.groupSize(replicated) > 1)
                backward.push_back(transfer(CollectiveKind::AllGather, replicated, bytes, Phase::Backward));
        }
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
    const double fill = (P - 1) / bubbleDivisor(settings);
    pipe.bubbleFraction = fill / (m + fill);
    pipe.balanced = std::all_of(pipe.stages.begin(), pipe.stages.end(),
                                [&](const StageReport& st) { return st.perMicrobatch() >= 0.99 * slot; });
    const StageReport& slow = pipe.stages[std::size_t(pipe.slowest)];
    e.stepTime = (m + fill) * slot + work;
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
