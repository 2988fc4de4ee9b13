#include "engine/cost/graph_facts.h"

#include "engine/cost/fp8_gemms.h"

#include <algorithm>
#include <numeric>

namespace shardscope {

namespace {

/// What each attention-core op's core (attention-core ops joined through the tensors one writes and
/// another reads) is: whether it drops out probabilities, and its head size.
struct Cores {
    std::vector<bool> dropout;
    std::vector<std::int64_t> headDim;
};

/// The elements a contraction sums per output element: the product of its reduction factors' sizes.
std::int64_t reductionSize(const Op& op) {
    std::int64_t n = 1;
    for (const Factor& f : op.rule.factors)
        if (f.type == FactorType::Reduction)
            n *= f.size;
    return n;
}

/// Per op, its core's figures: the dropout flag, and the head size as the smallest reduction among the
/// core's contractions (QK^T sums over the head; PV over the keys, which are longer).
Cores analyseCores(const Graph& g) {
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
    const std::size_t n = g.ops().size();
    std::vector<bool> dropout(n, false);
    std::vector<std::int64_t> head(n, 0);
    for (std::size_t o = 0; o < n; ++o) {
        const Op& op = g.ops()[o];
        if (!op.attentionCore)
            continue;
        if (op.kind == OpKind::Dropout)
            dropout[find(o)] = true;
        if (opKindTraits(op.kind).category == OpCategory::Contraction) {
            std::int64_t& h = head[find(o)];
            h = h == 0 ? reductionSize(op) : std::min(h, reductionSize(op));
        }
    }
    Cores out{std::vector<bool>(n, false), std::vector<std::int64_t>(n, 0)};
    for (std::size_t o = 0; o < n; ++o)
        if (g.ops()[o].attentionCore) {
            out.dropout[o] = dropout[find(o)];
            out.headDim[o] = head[find(o)];
        }
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
    Cores cores = analyseCores(g);
    dropoutCore_ = std::move(cores.dropout);
    coreHeadDim_ = std::move(cores.headDim);
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
