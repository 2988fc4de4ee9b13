#include "engine/cost/saved_activations.h"

#include "engine/ir/repeated_blocks.h"

#include <algorithm>
#include <map>

namespace shardscope {

RecomputeUnits recomputeUnits(const Graph& graph) {
    RecomputeUnits units;
    units.unitOf.assign(graph.ops().size(), -1);
    if (const auto blocks = findLayers(graph)) {
        units.unitOf = blocks->blockOf;
        units.count = blocks->count();
        return units;
    }
    std::map<std::string, int> ids;
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        const std::string& block = graph.ops()[o].block;
        if (block.empty())
            continue;
        const auto [it, fresh] = ids.emplace(block, static_cast<int>(ids.size()));
        units.unitOf[o] = it->second;
    }
    units.count = static_cast<int>(ids.size());
    return units;
}

bool isRecomputed(const Op& op, int unit, Recompute recompute, AttentionKernel attention) {
    return (recompute == Recompute::Full && unit >= 0) ||
           (op.attentionCore && (recompute == Recompute::Selective || attention == AttentionKernel::Fused));
}

bool readsInputInBackward(const Graph& graph, const Op& op, std::size_t k, const std::vector<bool>& needsGradient) {
    const OpKindTraits& traits = opKindTraits(op.kind);
    const Tensor& t = graph.tensor(op.inputs[k]);
    if (!traits.savesInputs || t.role == TensorRole::Parameter || t.role == TensorRole::Constant)
        return false;
    if (traits.category != OpCategory::Contraction && traits.category != OpCategory::Lookup)
        return true;
    for (std::size_t j = 0; j < op.inputs.size(); ++j)
        if (j != k && needsGradient[op.inputs[j].index()])
            return true;
    return false;
}

namespace {

/// What each op keeps under `recompute` (the `kept` half of savedActivations).
std::vector<SavedByOp> keptByOp(const Graph& g, const RecomputeUnits& units, Recompute recompute,
                                AttentionKernel attention, const std::vector<bool>& needsGradient,
                                const std::vector<bool>& fp8Readers) {
    std::vector<SavedByOp> kept(g.ops().size());
    auto recomputed = [&](OpId o) { return isRecomputed(g.op(o), units.unitOf[o.index()], recompute, attention); };
    for (std::size_t ti = 0; ti < g.tensors().size(); ++ti) {
        const Tensor& t = g.tensors()[ti];
        if (t.role == TensorRole::Parameter || t.role == TensorRole::Constant)
            continue;
        const TensorId id(ti);
        const bool produced = t.producer.valid();
        // `wide`: kept in its own type (its producer's backward, a non-FP8 reader's, a checkpoint, the
        // fused attention kernel's output that its backward reads); `fp8`: an FP8 GEMM keeps its copy.
        bool wide = produced && opKindTraits(g.op(t.producer).kind).savesOutput && !recomputed(t.producer);
        bool fp8 = false;
        const bool blockRecomputed = recompute == Recompute::Full && produced && units.unitOf[t.producer.index()] >= 0;
        if (produced && attention == AttentionKernel::Fused && g.op(t.producer).attentionCore && !blockRecomputed)
            for (OpId c : t.consumers)
                wide = wide || !g.op(c).attentionCore;
        OpId firstReader;
        std::size_t firstSlot = 0;
        for (OpId c : t.consumers) {
            const Op& op = g.op(c);
            for (std::size_t k = 0; k < op.inputs.size(); ++k) {
                if (op.inputs[k] != id)
                    continue;
                bool needed = false;
                if (recomputed(c))
                    needed = !produced || !recomputed(t.producer) ||
                             units.unitOf[t.producer.index()] != units.unitOf[c.index()];
                else
                    needed = readsInputInBackward(g, op, k, needsGradient);
                if (needed && !firstReader.valid()) {
                    firstReader = c;
                    firstSlot = k;
                }
                const bool fp8Reader = !recomputed(c) && !fp8Readers.empty() && fp8Readers[c.index()];
                (fp8Reader ? fp8 : wide) = (fp8Reader ? fp8 : wide) || needed;
            }
        }
        if (!wide && !fp8)
            continue;
        if (produced) {
            const Op& p = g.op(t.producer);
            SavedByOp& owner = kept[t.producer.index()];
            const auto slot = static_cast<std::size_t>(std::find(p.outputs.begin(), p.outputs.end(), id) - p.outputs.begin());
            if (wide)
                owner.outputs.push_back(slot);
            if (fp8)
                owner.fp8Outputs.push_back(slot);
        } else if (firstReader.valid()) {
            SavedByOp& owner = kept[firstReader.index()];
            if (wide)
                owner.inputs.push_back(firstSlot);
            if (fp8)
                owner.fp8Inputs.push_back(firstSlot);
        }
    }
    for (std::size_t o = 0; o < g.ops().size(); ++o)
        kept[o].mask = opKindTraits(g.ops()[o].kind).maskBytesPerElement > 0 && !recomputed(OpId(o));
    return kept;
}

/// The entries of `all` that `kept` does not hold already.
SavedByOp without(const SavedByOp& all, const SavedByOp& kept) {
    SavedByOp rest;
    using Slots = std::vector<std::size_t> SavedByOp::*;
    for (const Slots list : {&SavedByOp::outputs, &SavedByOp::inputs, &SavedByOp::fp8Outputs, &SavedByOp::fp8Inputs})
        for (std::size_t k : all.*list)
            if (std::find((kept.*list).begin(), (kept.*list).end(), k) == (kept.*list).end())
                (rest.*list).push_back(k);
    rest.mask = all.mask && !kept.mask;
    return rest;
}

} // namespace

SavedActivations savedActivations(const Graph& graph, const RecomputeUnits& units, Recompute recompute,
                                  AttentionKernel attention, const std::vector<bool>& needsGradient,
                                  const std::vector<bool>& fp8Readers) {
    SavedActivations saved;
    saved.kept = keptByOp(graph, units, recompute, attention, needsGradient, fp8Readers);
    saved.workspace.assign(graph.ops().size(), SavedByOp{});
    if (recompute != Recompute::Full || units.count == 0)
        return saved;
    const std::vector<SavedByOp> all = keptByOp(graph, units, Recompute::None, attention, needsGradient, fp8Readers);
    for (std::size_t o = 0; o < graph.ops().size(); ++o)
        if (units.unitOf[o] >= 0)
            saved.workspace[o] = without(all[o], saved.kept[o]);
    saved.workspaceWeight = 1.0 / units.count;
    return saved;
}

} // namespace shardscope
