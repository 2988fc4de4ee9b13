#include "engine/cost/cost_model.h"

#include "engine/cost/attention_head_rate.h"
#include "engine/cost/comm_streams.h"
#include "engine/cost/loss_traffic.h"
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

CostModel::CostModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
                     const StepSettings& settings)
    : CostModel(graph, cluster, mesh, settings, CommModel(*cluster, mesh)) {}

CostModel::CostModel(const Graph& graph, const Cluster& cluster, const Mesh& mesh, const StepSettings& settings)
    : CostModel(std::make_shared<const Graph>(graph), std::make_shared<const Cluster>(cluster), mesh, settings) {}

CostModel::CostModel(std::shared_ptr<const Graph> graphShared, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
                     const StepSettings& settings, const CommModel& comm)
    : CostModel(std::make_shared<const GraphFacts>(std::move(graphShared)), std::move(cluster), mesh, settings, comm) {}

CostModel::CostModel(std::shared_ptr<const GraphFacts> facts, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
                     const StepSettings& settings, const CommModel& comm)
    : graph_(facts->graph()), cluster_(std::move(cluster)), mesh_(mesh), settings_(settings), comm_(comm),
      facts_(std::move(facts)), fp8_(facts_->fp8Gemms(settings.precision)),
      saved_(facts_->saved(settings.recompute, settings.attention, settings.precision)) {}

CostModel::CostModel(const CostModel& like, const StepSettings& settings)
    : graph_(like.graph_), cluster_(like.cluster_), mesh_(like.mesh_), settings_(settings), comm_(like.comm_),
      facts_(like.facts_), fp8_(facts_->fp8Gemms(settings.precision)),
      saved_(facts_->saved(settings.recompute, settings.attention, settings.precision)) {}

bool CostModel::fp8Gemm(OpId o) const { return !fp8_->empty() && (*fp8_)[o.index()]; }

double CostModel::backwardFlops(OpId o) const {
    const Op& op = graph_->op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    int gradInputs = 0;
    for (TensorId t : op.inputs)
        gradInputs += facts_->needsGradient()[t.index()] ? 1 : 0;
    if (gradInputs == 0 || traits.category == OpCategory::Layout)
        return 0;
    if (traits.category == OpCategory::Contraction)
        return graph_->forwardFlops(o) * gradInputs;
    if (traits.category == OpCategory::Lookup)
        return graph_->tensor(op.outputs.front()).elements();
    return graph_->forwardFlops(o);
}

double CostModel::computeSeconds(double flops, double bytes, DType dtype) const {
    const DeviceSpec& d = cluster_->device;
    return std::max({flops / (d.peakFor(dtype) * d.efficiency), bytes / d.achievedMemoryBandwidth(), d.launchFloor});
}

CollectiveCost CostModel::collective(CollectiveKind kind, AxisSet axes, double bytes, int count, Phase phase,
                                     CommPurpose purpose, TensorId tensor) const {
    CollectiveCost c;
    c.kind = kind;
    c.axes = axes;
    c.bytes = bytes;
    const bool coalesced = purpose == CommPurpose::GradientSync || purpose == CommPurpose::ParameterGather;
    c.bucket = coalesced ? settings_.bucketBytes : 0;
    const CommShape shape = comm_.shape(kind, axes, bytes, c.bucket);
    c.time = shape.seconds();
    c.latency = shape.latency;
    c.bytesSent = comm_.bytesSent(kind, axes, bytes);
    c.count = count;
    c.phase = phase;
    c.purpose = purpose;
    c.tensor = tensor;
    return c;
}

bool CostModel::recomputed(OpId o) const {
    return isRecomputed(graph_->op(o), facts_->units().unitOf[o.index()], settings_.recompute, settings_.attention);
}

bool CostModel::fusedAttention(OpId o) const {
    return settings_.attention == AttentionKernel::Fused && graph_->op(o).attentionCore;
}

bool CostModel::recomputesCompute(OpId o) const {
    if (!fusedAttention(o))
        return recomputed(o);
    // Inside the fused kernel's backward the scores and probabilities are recomputed, not the output;
    // full recomputation of the block runs the whole kernel again.
    return facts_->insideCore()[o.index()] ||
           (settings_.recompute == Recompute::Full && facts_->units().unitOf[o.index()] >= 0);
}

bool CostModel::costsOpAs(OpId o, const CostModel& other) const {
    const StepSettings& a = settings_;
    const StepSettings& b = other.settings_;
    if (graph_ != other.graph_ || cluster_ != other.cluster_ || !(mesh_ == other.mesh_) ||
        a.microbatches != b.microbatches)
        return false;
    const Op& op = graph_->op(o);
    if (a.zeroStage != b.zeroStage || a.zeroAxes != b.zeroAxes || a.optimizer != b.optimizer ||
        a.overlap != b.overlap || a.bucketBytes != b.bucketBytes)
        for (TensorId t : op.inputs)
            if (graph_->tensor(t).role == TensorRole::Parameter && graph_->parameterOwner(t) == o)
                return false;
    if (a.attention != b.attention && op.attentionCore)
        return false;
    const std::size_t i = o.index();
    if (a.precision != b.precision &&
        (fp8Gemm(o) || other.fp8Gemm(o) || !saved_->kept[i].fp8Outputs.empty() || !saved_->kept[i].fp8Inputs.empty() ||
         !other.saved_->kept[i].fp8Outputs.empty() || !other.saved_->kept[i].fp8Inputs.empty()))
        return false;
    if (a.recompute == b.recompute && a.attention == b.attention)
        return true;
    const bool computes = opKindTraits(op.kind).category != OpCategory::Layout;
    const SavedActivations &mine = *saved_, &theirs = *other.saved_;
    const bool noWorkspace = mine.workspace[i] == SavedByOp{} && theirs.workspace[i] == SavedByOp{};
    return (!computes || (recomputed(o) == other.recomputed(o) && recomputesCompute(o) == other.recomputesCompute(o))) &&
           mine.kept[i] == theirs.kept[i] &&
           (noWorkspace || (mine.workspace[i] == theirs.workspace[i] && mine.workspaceWeight == theirs.workspaceWeight));
}

double CostModel::savedBytes(OpId o, const SavedByOp& saved, const OpStrategy& s) const {
    const Op& op = graph_->op(o);
    double bytes = 0;
    for (std::size_t k : saved.outputs)
        bytes += localBytes(graph_->tensor(op.outputs[k]), outputSplitAxes(op, k, s), mesh_);
    for (std::size_t k : saved.inputs)
        bytes += localBytes(graph_->tensor(op.inputs[k]), inputSplitAxes(op, k, s), mesh_);
    const double fp8 = fp8CopyBytesPerElement(settings_.precision);
    for (std::size_t k : saved.fp8Outputs)
        bytes += graph_->tensor(op.outputs[k]).elements() * fp8 / mesh_.groupSize(outputSplitAxes(op, k, s));
    for (std::size_t k : saved.fp8Inputs)
        bytes += graph_->tensor(op.inputs[k]).elements() * fp8 / mesh_.groupSize(inputSplitAxes(op, k, s));
    if (saved.mask) {
        const Tensor& out = graph_->tensor(op.outputs.front());
        bytes += out.elements() * opKindTraits(op.kind).maskBytesPerElement / mesh_.groupSize(outputSplitAxes(op, 0, s));
    }
    return bytes;
}

void CostModel::addSavedActivations(OpId o, const OpStrategy& s, OpCost& cost) const {
    const std::size_t i = o.index();
    const SavedActivations& saved = *saved_;
    cost.activationWorkspace = saved.workspace[i] == SavedByOp{}
                                   ? 0
                                   : saved.workspaceWeight * savedBytes(o, saved.workspace[i], s);
    cost.memory.activations = savedBytes(o, saved.kept[i], s) + cost.activationWorkspace;
}

bool CostModel::keepsProducerSharding(const Edge& e) const {
    return !e.parameterShare && readsInputInBackward(*graph_, graph_->op(e.to), e.toInput, facts_->needsGradient());
}

void CostModel::addParameterCosts(OpId o, std::size_t k, const OpStrategy& s, OpCost& cost) const {
    const Op& op = graph_->op(o);
    const Tensor& w = graph_->tensor(op.inputs[k]);
    const AxisSet split = inputSplitAxes(op, k, s);
    const double elements = w.elements() * (1.0 / mesh_.groupSize(split));
    const double bytes = elements * dtypeBytes(w.dtype);
    const int stage = settings_.zeroStage;
    const AxisSet zero = stage > 0 ? (settings_.zeroAxes & ~split) : 0;
    const double nz = mesh_.groupSize(zero);
    const AxisSet sync = inputGradientPartial(op, k, s);
    const int m = settings_.microbatches;

    cost.memory.parameters += bytes / (stage >= 3 ? nz : 1);
    // An FP8 GEMM's weight also lives as its FP8 copies (fp8CopiesBytesPerElement: value and transpose on
    // Hopper, the value alone on Blackwell, MXFP8's row- and column-wise ones), cast in the first micro-batch and kept for the others (Transformer Engine's
    // weight cache); under ZeRO-3 they are built from the gathered weight and live while it does, and
    // the gather itself moves one FP8 copy (FSDP2's float8 all-gather, Megatron's --fp8-param-gather).
    const bool fp8 = fp8Gemm(o);
    const double fp8Copies = elements * fp8CopiesBytesPerElement(settings_.precision, cluster_->device);
    const double gathered = fp8 ? elements * fp8CopyBytesPerElement(settings_.precision) : bytes;
    const double held = fp8 ? fp8Copies : bytes;
    if (fp8 && stage < 3)
        cost.memory.parameters += fp8Copies;
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
        cost.collectives.push_back(collective(CollectiveKind::AllGather, zero, gathered, m, Phase::Forward,
                                              CommPurpose::ParameterGather, op.inputs[k]));
        cost.collectives.push_back(collective(CollectiveKind::AllGather, zero, gathered, m, Phase::Backward,
                                              CommPurpose::ParameterGather, op.inputs[k]));
        // Its gathered weight while it runs; with overlap, room beside it for the gathers prefetched
        // meanwhile (FSDP2 holds the next module unsharded while this one computes; the step program
        // prefetches into this room, gather_prefetch.h).
        cost.transient += held;
        if (settings_.overlap) {
            cost.transient += held;
            cost.prefetchRoom += held;
        }
    }
    const double updated = elements / (stage >= 1 ? nz : 1);
    cost.optimizer += std::max(updated * optimizerTrafficBytes(settings_.optimizer) / cluster_->device.achievedMemoryBandwidth(),
                               cluster_->device.launchFloor);
}

CostModel::ComputeTimes CostModel::computeTimes(OpId o, const OpStrategy& s) const {
    const Op& op = graph_->op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    ComputeTimes out;
    double bytes = 0;
    int gradInputs = 0;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = graph_->tensor(op.inputs[k]);
        // A lookup reads only the rows it gathers (as many bytes as it writes), not the whole table.
        if (!(traits.category == OpCategory::Lookup && t.role == TensorRole::Parameter))
            bytes += localBytes(t, inputSplitAxes(op, k, s), mesh_);
        gradInputs += facts_->needsGradient()[op.inputs[k].index()] ? 1 : 0;
    }
    for (std::size_t k = 0; k < op.outputs.size(); ++k)
        out.outputBytes += localBytes(graph_->tensor(op.outputs[k]), outputSplitAxes(op, k, s), mesh_);
    bytes += out.outputBytes;
    const double parts = mesh_.groupSize(s.usedAxes());
    const double flops = graph_->forwardFlops(o) / parts;
    const DType dtype = graph_->tensor(op.outputs.front()).dtype;
    if (fusedAttention(o)) {
        // One kernel in on-chip memory: its FLOPs at the attention efficiency, no HBM traffic for the
        // s x s tensors (FlashAttention-2's backward, 2.5x the forward, is the two contractions'
        // dX and dW plus the scores' recomputation, recomputesCompute()). Under a causal mask it skips
        // the blocks above the diagonal, half the FLOPs; under a sliding window all but its band. Heads
        // under 128 run slower (attentionHeadDimRate).
        const DeviceSpec& d = cluster_->device;
        const double efficiency =
            (facts_->dropoutCore()[o.index()] ? d.attentionDropoutEfficiency : d.attentionEfficiency) *
            attentionHeadDimRate(facts_->coreHeadDim()[o.index()]);
        const double rate = d.peakFor(dtype) * efficiency / op.attendedShare();
        out.forward = flops / rate;
        if (gradInputs > 0)
            out.backward = backwardFlops(o) / parts / rate;
        if (recomputesCompute(o))
            out.recompute = out.forward;
    } else if (fp8Gemm(o)) {
        const Fp8Gemm f = fp8GemmTimes(o, s, flops, bytes, parts, gradInputs);
        out.forward = f.forward;
        out.backward = f.backward;
        if (recomputed(o))
            out.recompute = out.forward;
    } else if (op.kind == OpKind::CrossEntropy) {
        // Memory-bound passes over the logits in FP32 (crossEntropyTraffic), beside its FP32 copy.
        const Tensor& logits = graph_->tensor(op.inputs.front());
        const double local = localBytes(logits, inputSplitAxes(op, 0, s), mesh_) / dtypeBytes(logits.dtype);
        const LossTraffic traffic = crossEntropyTraffic(logits.dtype, settings_.loss);
        out.forward = computeSeconds(flops, local * traffic.forward, dtype);
        if (gradInputs > 0)
            out.backward = computeSeconds(backwardFlops(o) / parts, local * traffic.backward, dtype);
        out.workspaceBytes = local * traffic.workspace;
    } else if (traits.category != OpCategory::Layout) {
        out.forward = computeSeconds(flops, bytes, dtype);
        if (gradInputs > 0) {
            const bool contraction = traits.category == OpCategory::Contraction;
            const double bbytes = contraction ? bytes * gradInputs : 2.0 * bytes;
            out.backward = computeSeconds(backwardFlops(o) / parts, bbytes, dtype);
        }
        if (recomputed(o))
            out.recompute = out.forward;
    }
    return out;
}

CostModel::Fp8Gemm CostModel::fp8GemmTimes(OpId o, const OpStrategy& s, double flops, double bytes, double parts,
                                            int gradInputs) const {
    // The GEMMs at the FP8 peak times the FP8 efficiency; beside each, the casts to FP8 as memory-bound
    // kernels (read BF16, write its FP8 copies, fp8CastBytesPerElement): the forward casts its input
    // activation every micro-batch and its weight once per step (1/m here), the backward its output
    // gradient.
    const Op& op = graph_->op(o);
    const DeviceSpec& d = cluster_->device;
    const double rate = d.peakFor(DType::FP8) * d.fp8Efficiency;
    const double castSeconds = fp8CastBytesPerElement(settings_.precision, d) / d.achievedMemoryBandwidth();
    double activations = 0, weights = 0;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& t = graph_->tensor(op.inputs[k]);
        const double local = t.elements() / mesh_.groupSize(inputSplitAxes(op, k, s));
        (t.role == TensorRole::Parameter ? weights : activations) += local;
    }
    const double outputs = graph_->tensor(op.outputs.front()).elements() / mesh_.groupSize(outputSplitAxes(op, 0, s));
    Fp8Gemm out;
    out.forward = std::max({flops / rate, bytes / d.achievedMemoryBandwidth(), d.launchFloor}) +
                  (activations + weights / settings_.microbatches) * castSeconds;
    if (gradInputs > 0)
        out.backward = std::max({backwardFlops(o) / parts / rate, bytes * gradInputs / d.achievedMemoryBandwidth(),
                                 d.launchFloor}) +
                       outputs * castSeconds;
    return out;
}

bool CostModel::hidesTensorParallelComm(OpId o) const {
    if (settings_.tpOverlap == TpOverlap::Off || fusedAttention(o))
        return false;
    const Op& op = graph_->op(o);
    if (opKindTraits(op.kind).category != OpCategory::Contraction)
        return false;
    for (TensorId t : op.inputs)
        if (graph_->tensor(t).role == TensorRole::Parameter)
            return true;
    return false;
}

OpCost CostModel::opCost(OpId o, const OpStrategy& s) const {
    const Op& op = graph_->op(o);
    const OpKindTraits& traits = opKindTraits(op.kind);
    const ShardingRule& rule = op.rule;
    const int m = settings_.microbatches;
    OpCost cost;
    int gradInputs = 0;
    for (TensorId t : op.inputs)
        gradInputs += facts_->needsGradient()[t.index()] ? 1 : 0;

    // Compute, forward and backward.
    const ComputeTimes compute = computeTimes(o, s);
    cost.forward = m * compute.forward;
    cost.backward = m * compute.backward;
    cost.recompute = m * compute.recompute;
    // Inside the fused attention kernel the scores and probabilities stay on chip: no buffer.
    if (!(fusedAttention(o) && facts_->insideCore()[o.index()]))
        cost.transient += compute.outputBytes;
    cost.transient += compute.workspaceBytes;

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
        const Tensor& x = graph_->tensor(op.inputs.front());
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
        const Tensor& t = graph_->tensor(op.inputs[k]);
        if (t.role == TensorRole::Parameter && graph_->parameterOwner(op.inputs[k]) == o)
            addParameterCosts(o, k, s, cost);
    }
    addSavedActivations(o, s, cost);
    hideBehindCompute(cost);
    return cost;
}

void CostModel::hideBehindCompute(OpCost& cost) const {
    if (!settings_.overlap)
        return;
    // The background streams' collectives (comm_streams.h) hide behind one micro-batch of the op's
    // own compute: the forward for parameter gathers (ZeRO-3's every micro-batch, ZeRO-1 and 2's in the
    // first one), the backward (with its recomputation) for ZeRO-3's gathers there and every gradient
    // reduction. The collectives of one window that use the same link level share it; compute runs
    // 1 + slowdown times slower beside them, so a window of w seconds of work holds w (1 + slowdown)
    // seconds of communication and costs slowdown / (1 + slowdown) of what it hides in extra compute.
    const double m = settings_.microbatches;
    const double slow = cluster_->device.overlapSlowdown;
    const std::size_t levels = comm_.levelCount();
    struct Window {
        double work = 0;
        LevelValues everyMicrobatch, once; ///< per level: seconds hidden
    };
    Window forward{cost.forward / m, LevelValues(levels), LevelValues(levels)};
    Window backward{(cost.backward + cost.recompute) / m, LevelValues(levels), LevelValues(levels)};
    // Collectives that run every micro-batch claim the windows first, then those that run once.
    for (const bool perMicrobatch : {true, false})
        for (CollectiveCost& c : cost.collectives) {
            const Stream stream = streamOf(c);
            if (!isBackground(stream) || (c.count > 1) != perMicrobatch)
                continue;
            Window& w = stream == Stream::Gather && c.phase != Phase::Backward ? forward : backward;
            const std::size_t level = comm_.slowestLevel(c.axes);
            const double used = w.everyMicrobatch[level] + w.once[level];
            c.hidden = std::clamp(w.work * (1 + slow) - used, 0.0, c.time);
            (perMicrobatch ? w.everyMicrobatch : w.once)[level] += c.hidden;
        }
    // The extra compute: while any collective runs beside it (levels run at once: the busiest one).
    auto extra = [&](const Window& w) {
        double every = 0, all = 0;
        for (std::size_t l = 0; l < levels; ++l) {
            every = std::max(every, w.everyMicrobatch[l]);
            all = std::max(all, w.everyMicrobatch[l] + w.once[l]);
        }
        return slow / (1 + slow) * ((m - 1) * every + all);
    };
    cost.forwardSlowdown = extra(forward);
    cost.backwardSlowdown = extra(backward);
}

CostModel::ProducerEnd CostModel::producerEnd(const Edge& e, const OpStrategy& from) const {
    const Op& producer = graph_->op(e.from);
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
        // With full overlap the gradient's resharding back into a linear layer (the all-gather of a
        // row-parallel layer's output gradient under sequence parallelism) runs chunked beside that
        // layer's backward GEMM, as its forward resharding beside its forward GEMM.
        if (settings_.tpOverlap == TpOverlap::Full && hidesTensorParallelComm(e.from)) {
            const ComputeTimes t = computeTimes(e.from, from);
            end.window = t.forward;
            end.backwardWindow = t.backward;
        }
    }
    return end;
}

CostModel::ConsumerEnd CostModel::consumerEnd(const Edge& e, const OpStrategy& to) const {
    const Op& consumer = graph_->op(e.to);
    ConsumerEnd end;
    end.value = inputSharding(consumer, e.toInput, to);
    end.gradient = end.value;
    end.gradient.partial = inputGradientPartial(consumer, e.toInput, to);
    if (!e.parameterShare && hidesTensorParallelComm(e.to) &&
        graph_->tensor(consumer.inputs[e.toInput]).role != TensorRole::Parameter) {
        const ComputeTimes t = computeTimes(e.to, to);
        end.window = settings_.tpOverlap == TpOverlap::Full ? t.forward : 0;
        end.backwardWindow = t.backward;
    }
    return end;
}

EdgeCost CostModel::edgeCost(const Edge& e, const OpStrategy& from, const OpStrategy& to) const {
    return edgeCost(e, producerEnd(e, from), consumerEnd(e, to));
}

double CostModel::edgeTime(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const EdgeTimes t = edgeTimes(e, from, to);
    return forwardPasses(e.to) * t.forward + t.backward;
}

ReshardTime CostModel::reshardTime(const TensorSharding& from, const TensorSharding& to, double bytes) const {
    const int m = settings_.microbatches;
    ReshardTime t;
    for (const ReshardStep& step : reshard(from, to, bytes, mesh_)) {
        const double seconds = m * comm_.time(step.kind, step.axes, step.bytes);
        t.seconds += seconds;
        if (step.kind == CollectiveKind::AllGather)
            t.gathers += seconds;
    }
    return t;
}

CostModel::EdgeTimes CostModel::edgeParts(bool keepsProducer, const ReshardTime& forward, double gradient,
                                          const OverlapWindows& windows) const {
    const double m = settings_.microbatches;
    // A GEMM of w seconds beside a collective takes w (1 + slowdown) (hideBehindCompute()): it holds
    // that much communication and costs slowdown / (1 + slowdown) of what it hides.
    const double slow = cluster_->device.overlapSlowdown;
    const double stretch = 1 + slow;
    const double forwardWindow = m * windows.forward * stretch, backwardWindow = m * windows.backward * stretch;
    auto behind = [slow, stretch](double comm, double window) {
        const double hidden = std::min(comm, window);
        return comm - hidden + hidden * slow / stretch;
    };
    if (!keepsProducer)
        return EdgeTimes{behind(forward.seconds, forwardWindow), behind(gradient, backwardWindow)};
    // Of the backward part's 2g, one g is the forward pass's gathers (moved so that recomputation
    // only changes forwardPasses()): it hides behind what the forward window leaves; the other (the
    // re-gather, or the recomputation's) with the gradient behind the backward window.
    const double g = forward.gathers, rest = forward.seconds - g;
    const double forwardLeft = std::max(0.0, forwardWindow - rest);
    return EdgeTimes{behind(rest, forwardWindow), behind(g, forwardLeft) + behind(gradient + g, backwardWindow)};
}

CostModel::EdgeTimes CostModel::edgeTimes(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const double bytes = graph_->tensor(e.tensor).bytes();
    const double gradient =
        facts_->needsGradient()[e.tensor.index()] ? reshardTime(to.gradient, from.gradient, bytes).seconds : 0;
    return edgeParts(keepsProducerSharding(e), reshardTime(from.value, to.value, bytes), gradient, windows(from, to));
}

EdgeCost CostModel::edgeCost(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const {
    const Tensor& t = graph_->tensor(e.tensor);
    const int m = settings_.microbatches;
    EdgeCost cost;
    const int forwardCount = forwardPasses(e.to) * m;
    // A consumer that reads its input in the backward and is not recomputed gathers it again there.
    const bool regather = keepsProducerSharding(e) && !recomputed(e.to);
    for (const ReshardStep& step : reshard(from.value, to.value, t.bytes(), mesh_)) {
        cost.collectives.push_back(
            collective(step.kind, step.axes, step.bytes, forwardCount, Phase::Forward, CommPurpose::Resharding, e.tensor));
        if (regather && step.kind == CollectiveKind::AllGather)
            cost.collectives.push_back(
                collective(step.kind, step.axes, step.bytes, m, Phase::Backward, CommPurpose::Resharding, e.tensor));
    }
    if (facts_->needsGradient()[e.tensor.index()])
        for (const ReshardStep& step : reshard(to.gradient, from.gradient, t.bytes(), mesh_))
            cost.collectives.push_back(
                collective(step.kind, step.axes, step.bytes, m, Phase::Backward, CommPurpose::Resharding, e.tensor));
    const OverlapWindows w = windows(from, to);
    if (w.forward > 0 || w.backward > 0) {
        // What edgeTime() hides, spread over the collectives, the backward's first: the breakdown
        // then sums to the search's figure.
        double full = 0;
        for (const CollectiveCost& c : cost.collectives)
            full += c.totalTime();
        double left = full - edgeTime(e, from, to);
        for (Phase phase : {Phase::Backward, Phase::Forward})
            for (CollectiveCost& c : cost.collectives)
                if (c.phase == phase && left > 0) {
                    const double share = std::min(left, c.totalTime());
                    c.hidden = share / c.count;
                    left -= share;
                }
    }
    return cost;
}

} // namespace shardscope
