#include "engine/pipeline/pipeline_cost.h"

#include <algorithm>
#include <map>

namespace shardscope {


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

} // namespace shardscope
