#include "engine/cost/graph_facts.h"

#include "engine/cost/fp8_gemms.h"

#include <numeric>

namespace shardscope {

namespace {

/// Per op: an attention-core op in a core (attention-core ops joined through the tensors one writes
/// and another reads) that holds a dropout.
std::vector<bool> coresWithDropout(const Graph& g) {
    std::vector<std::size_t> root(g.ops().size());
    std::iota(root.begin(), root.end(), std::size_t(0));
    auto find = [&](std::size_t o) {
        while (root[o] != o)
            o = root[o] = root[root[o]];
        return o;
    };
    for (std::size_t o = 0; o < g.ops().size(); ++o) {
        const Op& op = g.ops()[o];
        if (!op.attentionCore)
            continue;
        for (TensorId t : op.outputs)
            for (OpId c : g.tensor(t).consumers)
                if (g.op(c).attentionCore)
                    root[find(c.index())] = find(o);
    }
    std::vector<bool> dropout(g.ops().size(), false), out(g.ops().size(), false);
    for (std::size_t o = 0; o < g.ops().size(); ++o)
        if (g.ops()[o].attentionCore && g.ops()[o].kind == OpKind::Dropout)
            dropout[find(o)] = true;
    for (std::size_t o = 0; o < g.ops().size(); ++o)
        out[o] = g.ops()[o].attentionCore && dropout[find(o)];
    return out;
}

} // namespace

GraphFacts::GraphFacts(std::shared_ptr<const Graph> graph)
    : graph_(std::move(graph)), edges_(graphEdges(*graph_)), units_(recomputeUnits(*graph_)) {
    const Graph& g = *graph_;
    needsGrad_.assign(g.tensors().size(), false);
    for (std::size_t t = 0; t < g.tensors().size(); ++t)
        needsGrad_[t] = g.tensors()[t].role == TensorRole::Parameter;
    for (OpId o : g.topoOrder()) {
        const Op& op = g.op(o);
        bool any = false;
        for (TensorId t : op.inputs)
            any = any || needsGrad_[t.index()];
        for (TensorId t : op.outputs)
            needsGrad_[t.index()] = any;
    }
    insideCore_.assign(g.ops().size(), false);
    for (OpId o : g.topoOrder()) {
        const Op& op = g.op(o);
        bool inside = op.attentionCore;
        for (TensorId t : op.outputs)
            for (OpId c : g.tensor(t).consumers)
                inside = inside && g.op(c).attentionCore;
        insideCore_[o.index()] = inside;
    }
    dropoutCore_ = coresWithDropout(g);
}

std::shared_ptr<const std::vector<bool>> GraphFacts::fp8Gemms(Precision precision) const {
    const bool fp8 = precision != Precision::BF16;
    std::lock_guard lock(mutex_);
    auto& slot = fp8_[fp8];
    if (!slot)
        slot = std::make_shared<const std::vector<bool>>(fp8 ? shardscope::fp8Gemms(*graph_, units_) : std::vector<bool>());
    return slot;
}

std::shared_ptr<const SavedActivations> GraphFacts::saved(Recompute recompute, AttentionKernel attention,
                                                          Precision precision) const {
    const auto readers = fp8Gemms(precision);
    std::lock_guard lock(mutex_);
    auto& slot = saved_[std::make_tuple(recompute, attention, precision)];
    if (!slot)
        slot = std::make_shared<const SavedActivations>(
            savedActivations(*graph_, units_, recompute, attention, needsGrad_, *readers));
    return slot;
}

} // namespace shardscope
