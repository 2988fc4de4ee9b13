#include "engine/cost/cost_model.h"

#include "engine/sharding/resharding.h"

#include <algorithm>

namespace shardscope {

namespace {

/// Bytes per parameter of optimizer state: Adam keeps fp32 master weights, m and v; SGD master and momentum.
double optimizerStateBytes(OptimizerKind o) { return o == OptimizerKind::Adam ? 12.0 : 8.0; }
/// Bytes of memory traffic per parameter for one update (reads and writes of state, gradient, weight).
double optimizerTrafficBytes(OptimizerKind o) { return o == OptimizerKind::Adam ? 28.0 : 20.0; }

/// The operand's bytes on one device when the axes `split` split its dimensions.
double localBytes(const Tensor& t, AxisSet split, const Mesh& mesh) { return t.bytes() * (1.0 / mesh.groupSize(split)); }

} // namespace

CostModel::CostModel(const Graph& graph, const Cluster& cluster, const Mesh& mesh, const StepSettings& settings)
    : CostModel(graph, cluster, mesh, settings, CommModel(cluster, mesh)) {}

CostModel::CostModel(const Graph& graph, const Cluster& cluster, const Mesh& mesh, const StepSettings& settings,
                     const CommModel& comm)
    : graph_(graph), cluster_(cluster), mesh_(mesh), settings_(settings), comm_(comm) {
    needsGrad_.assign(graph.tensors().size(), false);
    for (std::size_t t = 0; t < graph.tensors().size(); ++t)
        needsGrad_[t] = graph.tensors()[t].role == TensorRole::Parameter;
    for (OpId o : graph.topoOrder()) {
        const Op& op = graph.op(o);
        bool any = false;
        for (TensorId t : op.inputs)
            any = any || needsGrad_[t.index()];
        for (TensorId t : op.outputs)
            needsGrad_[t.index()] = any;
    }
    edges_ = graphEdges(graph);
}

CostModel::CostModel(const CostModel& like, const StepSettings& settings)
    : graph_(like.graph_), cluster_(like.cluster_), mesh_(like.mesh_), settings_(settings), comm_(like.comm_),
      edges_(like.edges_), needsGrad_(like.needsGrad_) {}

double CostModel::backwardFlops(OpId o) const {
    const Op& op = graph_.op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    int gradInputs = 0;
    for (TensorId t : op.inputs)
        gradInputs += needsGrad_[t.index()] ? 1 : 0;
    if (gradInputs == 0 || traits.category == OpCategory::Layout)
        return 0;
    if (traits.category == OpCategory::Contraction)
        return graph_.forwardFlops(o) * gradInputs;
    if (traits.category == OpCategory::Lookup)
        return graph_.tensor(op.outputs.front()).elements();
    return graph_.forwardFlops(o);
}

double CostModel::computeSeconds(double flops, double bytes, DType dtype) const {
    const DeviceSpec& d = cluster_.device;
    return std::max({flops / (d.peakFor(dtype) * d.efficiency), bytes / d.memoryBandwidth, d.launchFloor});
}

CollectiveCost CostModel::collective(CollectiveKind kind, AxisSet axes, double bytes, int count, Phase phase,
                                     CommPurpose purpose, TensorId tensor) const {
    CollectiveCost c;
    c.kind = kind;
    c.axes = axes;
    c.bytes = bytes;
    c.time = comm_.time(kind, axes, bytes);
    c.bytesSent = comm_.bytesSent(kind, axes, bytes);
    c.count = count;
    c.phase = phase;
    c.purpose = purpose;
    c.tensor = tensor;
    return c;
}

bool CostModel::recomputed(const Op& op) const {
    return settings_.recompute == Recompute::Full ||
           (settings_.recompute == Recompute::Selective && op.attentionCore);
}

bool CostModel::costsOpAs(OpId o, const CostModel& other) const {
    const StepSettings& a = settings_;
    const StepSettings& b = other.settings_;
    if (&graph_ != &other.graph_ || &cluster_ != &other.cluster_ || !(mesh_ == other.mesh_) ||
        a.microbatches != b.microbatches)
        return false;
    const Op& op = graph_.op(o);
    if (a.zeroStage != b.zeroStage || a.zeroAxes != b.zeroAxes || a.optimizer != b.optimizer)
        for (TensorId t : op.inputs)
            if (graph_.tensor(t).role == TensorRole::Parameter && graph_.parameterOwner(t) == o)
                return false;
    if (a.recompute == b.recompute || opKindTraits(op.kind).category == OpCategory::Layout)
        return true;
    if (a.recompute != Recompute::Full && b.recompute != Recompute::Full)
        return !op.attentionCore; // None against Selective
    if (a.recompute == Recompute::None || b.recompute == Recompute::None)
        return false;
    // Selective against Full: the attention core is recomputed under both, and keeps nothing unless
    // Full keeps one of its inputs as a block input (savedActivationBytes).
    if (!op.attentionCore)
        return false;
    for (TensorId t : op.inputs) {
        const Tensor& x = graph_.tensor(t);
        if (x.role != TensorRole::Parameter && x.role != TensorRole::Constant &&
            (!x.producer.valid() || graph_.op(x.producer).block != op.block))
            return false;
    }
    return true;
}

double CostModel::savedActivationBytes(OpId o, const OpStrategy& s) const {
    const Op& op = graph_.op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    if (traits.category == OpCategory::Layout)
        return 0;
    if (settings_.recompute == Recompute::Selective && op.attentionCore)
        return 0;
    double bytes = 0;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = graph_.tensor(op.inputs[k]);
        if (t.role == TensorRole::Parameter || t.role == TensorRole::Constant)
            continue;
        if (settings_.recompute == Recompute::Full) {
            // Only block inputs are kept; everything inside a block is recomputed from them.
            const bool blockInput = !t.producer.valid() || graph_.op(t.producer).block != op.block;
            if (blockInput)
                bytes += localBytes(t, inputSplitAxes(op, k, s), mesh_);
            continue;
        }
        if (traits.savesInputs)
            bytes += localBytes(t, inputSplitAxes(op, k, s), mesh_);
    }
    if (traits.savesOutput && settings_.recompute != Recompute::Full)
        for (std::size_t k = 0; k < op.outputs.size(); ++k)
            bytes += localBytes(graph_.tensor(op.outputs[k]), outputSplitAxes(op, k, s), mesh_);
    return bytes;
}

void CostModel::addParameterCosts(OpId o, std::size_t k, const OpStrategy& s, OpCost& cost) const {
    const Op& op = graph_.op(o);
    const Tensor& w = graph_.tensor(op.inputs[k]);
    const AxisSet split = inputSplitAxes(op, k, s);
    const double elements = w.elements() * (1.0 / mesh_.groupSize(split));
    const double bytes = elements * dtypeBytes(w.dtype);
    const int stage = settings_.zeroStage;
    const AxisSet zero = stage > 0 ? (settings_.zeroAxes & ~split) : 0;
    const double nz = mesh_.groupSize(zero);
    const AxisSet sync = inputGradientPartial(op, k, s);
    const int m = settings_.microbatches;

    cost.memory.parameters += bytes / (stage >= 3 ? nz : 1);
    cost.memory.gradients += bytes / (stage >= 2 ? nz : 1);
    cost.memory.optimizer += elements * optimizerStateBytes(settings_.optimizer) / (stage >= 1 ? nz : 1);

    double grad = bytes;
    const AxisSet scatter = stage >= 1 ? (sync & zero) : 0;
    const AxisSet reduce = sync & ~scatter;
    if (scatter) {
        cost.collectives.push_back(collective(CollectiveKind::ReduceScatter, scatter, grad, stage >= 2 ? m : 1,
                                              stage >= 2 ? Phase::Backward : Phase::Step, CommPurpose::GradientSync,
                                              op.inputs[k]));
        grad /= mesh_.groupSize(scatter);
    }
    if (reduce)
        cost.collectives.push_back(
            collective(CollectiveKind::AllReduce, reduce, grad, 1, Phase::Step, CommPurpose::GradientSync, op.inputs[k]));
    if (zero && (stage == 1 || stage == 2))
        cost.collectives.push_back(collective(CollectiveKind::AllGather, zero, bytes, 1, Phase::Step,
                                              CommPurpose::ParameterGather, op.inputs[k]));
    if (zero && stage >= 3) {
        cost.collectives.push_back(collective(CollectiveKind::AllGather, zero, bytes, m, Phase::Forward,
                                              CommPurpose::ParameterGather, op.inputs[k]));
        cost.collectives.push_back(collective(CollectiveKind::AllGather, zero, bytes, m, Phase::Backward,
                                              CommPurpose::ParameterGather, op.inputs[k]));
        cost.transient += bytes;
    }
    const double updated = elements / (stage >= 1 ? nz : 1);
    cost.optimizer += std::max(updated * optimizerTrafficBytes(settings_.optimizer) / cluster_.device.memoryBandwidth,
                               cluster_.device.launchFloor);
}

OpCost CostModel::opCost(OpId o, const OpStrategy& s) const {
    const Op& op = graph_.op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    const ShardingRule& rule = op.rule;
    const int m = settings_.microbatches;
    OpCost cost;

    // Compute, forward and backward.
    double bytes = 0;
    int gradInputs = 0;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = graph_.tensor(op.inputs[k]);
        // A lookup reads only the rows it gathers (as many bytes as it writes), not the whole table.
        if (!(traits.category == OpCategory::Lookup && t.role == TensorRole::Parameter))
            bytes += localBytes(t, inputSplitAxes(op, k, s), mesh_);
        gradInputs += needsGrad_[op.inputs[k].index()] ? 1 : 0;
    }
    double outBytes = 0;
    for (std::size_t k = 0; k < op.outputs.size(); ++k)
        outBytes += localBytes(graph_.tensor(op.outputs[k]), outputSplitAxes(op, k, s), mesh_);
    bytes += outBytes;
    const double parts = mesh_.groupSize(s.usedAxes());
    const double flops = graph_.forwardFlops(o) / parts;
    const DType dtype = graph_.tensor(op.outputs.front()).dtype;
    if (traits.category != OpCategory::Layout) {
        const double fwd = computeSeconds(flops, bytes, dtype);
        cost.forward = m * fwd;
        if (gradInputs > 0) {
            const bool contraction = traits.category == OpCategory::Contraction;
            const double bbytes = contraction ? bytes * gradInputs : 2.0 * bytes;
            cost.backward = m * computeSeconds(backwardFlops(o) / parts, bbytes, dtype);
        }
        if (recomputed(op))
            cost.recompute = m * fwd;
    }
    cost.transient += outBytes;

    // Statistics of split local-reduction factors (softmax, norms, loss).
    AxisSet local = 0;
    for (std::size_t f = 0; f < rule.factors.size(); ++f)
        if (rule.factors[f].type == FactorType::LocalReduction)
            local |= s.axesOn(static_cast<int>(f));
    if (local && traits.statisticsPerRow > 0) {
        double rows = 1;
        for (const DimFactors& dim : rule.outputs.front())
            for (int f : dim)
                if (rule.factors[static_cast<std::size_t>(f)].type != FactorType::LocalReduction)
                    rows *= static_cast<double>(rule.factors[static_cast<std::size_t>(f)].size) /
                            mesh_.groupSize(s.axesOn(f));
        const double statBytes = rows * traits.statisticsPerRow * 4.0;
        const TensorId name = op.outputs.front();
        cost.collectives.push_back(
            collective(CollectiveKind::AllReduce, local, statBytes, m, Phase::Forward, CommPurpose::Statistics, name));
        if (traits.category == OpCategory::Normalization && gradInputs > 0)
            cost.collectives.push_back(collective(CollectiveKind::AllReduce, local, statBytes, m, Phase::Backward,
                                                  CommPurpose::Statistics, name));
    }

    // Halo exchange of split spatial factors.
    int kernel = 1;
    if (op.inputs.size() > 1)
        for (const DimFactors& dim : rule.inputs[1])
            for (int f : dim)
                if (rule.factors[static_cast<std::size_t>(f)].type == FactorType::Fixed)
                    kernel = std::max<int>(kernel, static_cast<int>(rule.factors[static_cast<std::size_t>(f)].size));
    const double width = std::max(1, (kernel - 1) / 2);
    for (std::size_t d = 0; d < rule.inputs.front().size(); ++d) {
        const int f = rule.inputs.front()[d].front();
        if (rule.factors[static_cast<std::size_t>(f)].type != FactorType::Halo || !s.axesOn(f))
            continue;
        if (kernel <= 1 && op.kind == OpKind::Conv2d)
            continue;
        const Tensor& x = graph_.tensor(op.inputs.front());
        const double xLocal = localBytes(x, inputSplitAxes(op, 0, s), mesh_);
        const double extent = static_cast<double>(x.shape[d]) / mesh_.groupSize(s.axesOn(f));
        const double haloBytes = 2.0 * width * xLocal / extent;
        cost.collectives.push_back(
            collective(CollectiveKind::SendRecv, s.axesOn(f), haloBytes, m, Phase::Forward, CommPurpose::Halo, op.inputs.front()));
        if (gradInputs > 0)
            cost.collectives.push_back(collective(CollectiveKind::SendRecv, s.axesOn(f), haloBytes, m,
                                                  Phase::Backward, CommPurpose::Halo, op.inputs.front()));
    }

    // Parameters this op owns: memory, gradient synchronisation, ZeRO traffic, optimizer.
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = graph_.tensor(op.inputs[k]);
        if (t.role == TensorRole::Parameter && graph_.parameterOwner(op.inputs[k]) == o)
            addParameterCosts(o, k, s, cost);
    }
    cost.memory.activations = savedActivationBytes(o, s);
    return cost;
}

CostModel::ProducerEnd CostModel::producerEnd(const Edge& e, const OpStrategy& from) const {
    const Op& producer = graph_.op(e.from);
    ProducerEnd end;
    if (e.parameterShare) {
        // A shared parameter: its owner's copy, whose gradient may stay partial on the owner's sync axes.
        end.value = inputSharding(producer, e.fromSlot, from);
        end.gradient = end.value;
        end.gradient.partial = inputGradientPartial(producer, e.fromSlot, from);
    } else {
        // The producer reads its output gradient whole on the axes its output was partial on.
        end.value = outputSharding(producer, e.fromSlot, from);
        end.gradient = end.value;
        end.gradient.partial = 0;
    }
    return end;
}

CostModel::ConsumerEnd CostModel::consumerEnd(const Edge& e, const OpStrategy& to) const {
    const Op& consumer = graph_.op(e.to);
    ConsumerEnd end;
    end.value = inputSharding(consumer, e.toInput, to);
    end.gradient = end.value;
    end.gradient.partial = inputGradientPartial(consumer, e.toInput, to);
    return end;
}

EdgeCost CostModel::edgeCost(const Edge& e, const OpStrategy& from, const OpStrategy& to) const {
    return edgeCost(e, producerEnd(e, from), consumerEnd(e, to));
}

double CostModel::edgeTime(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const EdgeTimes t = edgeTimes(e, from, to);
    return forwardPasses(e.to) * t.forward + t.backward;
}

double CostModel::reshardSeconds(const TensorSharding& from, const TensorSharding& to, double bytes) const {
    const int m = settings_.microbatches;
    double t = 0;
    for (const ReshardStep& step : reshard(from, to, bytes, mesh_))
        t += m * comm_.time(step.kind, step.axes, step.bytes);
    return t;
}

CostModel::EdgeTimes CostModel::edgeTimes(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const double bytes = graph_.tensor(e.tensor).bytes();
    EdgeTimes t;
    t.forward = reshardSeconds(from.value, to.value, bytes);
    if (needsGrad_[e.tensor.index()])
        t.backward = reshardSeconds(to.gradient, from.gradient, bytes);
    return t;
}

EdgeCost CostModel::edgeCost(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const Tensor& t = graph_.tensor(e.tensor);
    const int m = settings_.microbatches;
    EdgeCost cost;
    const int forwardCount = forwardPasses(e.to) * m;
    for (const ReshardStep& step : reshard(from.value, to.value, t.bytes(), mesh_))
        cost.collectives.push_back(
            collective(step.kind, step.axes, step.bytes, forwardCount, Phase::Forward, CommPurpose::Resharding, e.tensor));
    if (needsGrad_[e.tensor.index()])
        for (const ReshardStep& step : reshard(to.gradient, from.gradient, t.bytes(), mesh_))
            cost.collectives.push_back(
                collective(step.kind, step.axes, step.bytes, m, Phase::Backward, CommPurpose::Resharding, e.tensor));
    return cost;
}

} // namespace shardscope
