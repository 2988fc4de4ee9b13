#include "engine/ir/repeated_blocks.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace shardscope {

namespace {

/// Mixes `v` into the running hash `h` (boost-style combine).
void mix(std::size_t& h, std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

/// Structural fingerprint of the op at topological position `pos`: kind, rule (factor sizes, types,
/// operand layout), hints, input shapes, dtypes and roles, and where each input comes from relative
/// to the op.
std::size_t fingerprint(const Graph& g, OpId o, int pos, const std::vector<int>& topoPos) {
    const Op& op = g.op(o);
    std::size_t h = std::size_t(op.kind);
    mix(h, op.attentionCore);
    mix(h, op.causal);
    mix(h, std::size_t(op.window));
    for (const Factor& f : op.rule.factors) {
        mix(h, std::size_t(f.size));
        mix(h, std::size_t(f.type));
    }
    for (const auto* side : {&op.rule.inputs, &op.rule.outputs})
        for (const OperandFactors& operand : *side) {
            mix(h, 0xabc);
            for (const DimFactors& dim : operand) {
                mix(h, 0xdef);
                for (int f : dim)
                    mix(h, std::size_t(f));
            }
        }
    for (const std::string* hint : {&op.hints.batch, &op.hints.tensor, &op.hints.sequence, &op.hints.expert})
        mix(h, std::hash<std::string>()(*hint));
    for (TensorId t : op.inputs) {
        const Tensor& tensor = g.tensor(t);
        mix(h, std::size_t(tensor.dtype));
        mix(h, std::size_t(tensor.role));
        for (auto d : tensor.shape)
            mix(h, std::size_t(d));
        // Where the input comes from, relative to this op; a parameter from whether it is shared.
        if (tensor.producer.valid())
            mix(h, std::size_t(pos - topoPos[tensor.producer.index()]));
        else
            mix(h, tensor.consumers.size() > 1 ? 0x5a5a : 0xa5a5);
    }
    return h;
}

/// Checks the chain property and fills exitPosition. False when blocks connect otherwise.
bool chainShaped(const Graph& g, RepeatedBlocks& rb) {
    const int last = rb.count() - 1;
    int exitPos = -1;
    auto noteExit = [&](int pos) {
        if (exitPos < 0)
            exitPos = pos;
        return exitPos == pos;
    };
    for (std::size_t w = 0; w < g.ops().size(); ++w) {
        for (TensorId t : g.ops()[w].inputs) {
            const Tensor& tensor = g.tensor(t);
            if (tensor.role == TensorRole::Parameter) {
                // A parameter shared with an op in the region would tie blocks together.
                if (tensor.consumers.size() > 1)
                    for (OpId c : tensor.consumers)
                        if (rb.blockOf[c.index()] >= 0)
                            return false;
                continue;
            }
            if (!tensor.producer.valid())
                continue;
            const std::size_t u = tensor.producer.index();
            const int bu = rb.blockOf[u], bw = rb.blockOf[w];
            if (bw >= 0) {
                if (bu == bw)
                    continue;
                if (bu == bw - 1 && noteExit(rb.positionOf[u]))
                    continue;
                if (bu < 0 && bw == 0)
                    continue;
                return false;
            }
            if (bu >= 0 && !(bu == last && noteExit(rb.positionOf[u])))
                return false;
        }
    }
    if (exitPos < 0)
        return false;
    rb.exitPosition = exitPos;
    return true;
}

} // namespace

std::optional<RepeatedBlocks> findRepeatedBlocks(const Graph& g) {
    const auto& order = g.topoOrder();
    const int n = static_cast<int>(order.size());
    std::vector<int> topoPos(g.ops().size());
    for (int i = 0; i < n; ++i)
        topoPos[order[std::size_t(i)].index()] = i;
    std::vector<std::size_t> fp(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        fp[std::size_t(i)] = fingerprint(g, order[std::size_t(i)], i, topoPos);

    // Candidate periods: gaps between consecutive occurrences of one fingerprint (a layer's ops recur
    // one period apart), the most frequent first.
    std::map<std::size_t, int> lastSeen;
    std::map<int, int> gapCount;
    for (int i = 0; i < n; ++i) {
        auto [it, fresh] = lastSeen.emplace(fp[std::size_t(i)], i);
        if (!fresh) {
            ++gapCount[i - it->second];
            it->second = i;
        }
    }
    std::vector<std::pair<int, int>> gaps; // (-count, gap)
    for (const auto& [gap, count] : gapCount)
        gaps.emplace_back(-count, gap);
    std::sort(gaps.begin(), gaps.end());
    if (gaps.size() > 32)
        gaps.resize(32);

    // For each period p, maximal runs where fp[k] == fp[k + p]; a run [i, j) gives blocks starting at i.
    int bestStart = 0, bestPeriod = 0, bestCount = 0;
    std::vector<int> periods;
    for (const auto& [negCount, gap] : gaps)
        periods.push_back(gap);
    std::sort(periods.begin(), periods.end());
    for (int p : periods) {
        if (2 * p > n)
            continue;
        int i = 0;
        while (i + p < n) {
            if (fp[std::size_t(i)] != fp[std::size_t(i + p)]) {
                ++i;
                continue;
            }
            int j = i;
            while (j + p < n && fp[std::size_t(j)] == fp[std::size_t(j + p)])
                ++j;
            const int count = (j - i + p) / p;
            if (count >= 2 && count * p > bestCount * bestPeriod) {
                bestStart = i;
                bestPeriod = p;
                bestCount = count;
            }
            i = j;
        }
    }
    if (bestCount < 2)
        return std::nullopt;
    // Prefer the start whose blocks form a chain: try the rotations of the period.
    for (int shift = 0; shift < bestPeriod; ++shift) {
        const int start = bestStart + shift;
        const int count = (bestCount * bestPeriod - shift) / bestPeriod;
        if (count < 2)
            break;
        RepeatedBlocks rb;
        rb.blockOf.assign(g.ops().size(), -1);
        rb.positionOf.assign(g.ops().size(), -1);
        for (int b = 0; b < count; ++b) {
            rb.blocks.emplace_back();
            for (int q = 0; q < bestPeriod; ++q) {
                const OpId o = order[std::size_t(start + b * bestPeriod + q)];
                rb.blocks.back().push_back(o);
                rb.blockOf[o.index()] = b;
                rb.positionOf[o.index()] = q;
            }
        }
        if (chainShaped(g, rb))
            return rb;
    }
    return std::nullopt;
}

namespace {

/// Appends the ops [first, last) as a block of `rb`, numbering them.
template <typename It>
void appendBlock(RepeatedBlocks& rb, It first, It last) {
    rb.blocks.emplace_back(first, last);
    for (std::size_t q = 0; q < rb.blocks.back().size(); ++q) {
        rb.blockOf[rb.blocks.back()[q].index()] = rb.count() - 1;
        rb.positionOf[rb.blocks.back()[q].index()] = int(q);
    }
}

/// `rb` with each block cut into `parts` consecutive pieces of its topological order.
RepeatedBlocks regrouped(const RepeatedBlocks& rb, int parts) {
    const int size = rb.period() / parts;
    RepeatedBlocks out;
    out.blockOf.assign(rb.blockOf.size(), -1);
    out.positionOf.assign(rb.positionOf.size(), -1);
    for (const std::vector<OpId>& block : rb.blocks)
        for (int k = 0; k < parts; ++k)
            appendBlock(out, block.begin() + k * size, block.begin() + (k + 1) * size);
    return out;
}

/// True when no block path (Op::block) has ops in two of `rb`'s blocks: each block is whole named
/// layers, never the attention of one layer apart from its MLP.
bool namesApart(const Graph& g, const RepeatedBlocks& rb) {
    std::map<std::string_view, int> owner;
    for (int b = 0; b < rb.count(); ++b)
        for (OpId o : rb.blocks[std::size_t(b)])
            if (const auto [it, fresh] = owner.emplace(g.op(o).block, b); !fresh && it->second != b)
                return false;
    return true;
}

/// `layers` with the ops after them taken as further layers of the same size while those chain on
/// (Gemma 3's 26 layers repeat 6 at a time: the last 2 follow the 4 blocks).
RepeatedBlocks extendedOver(const Graph& g, RepeatedBlocks layers) {
    const auto& order = g.topoOrder();
    const std::size_t size = std::size_t(layers.period());
    std::size_t next = 0;
    for (std::size_t i = 0; i < order.size(); ++i)
        if (layers.blockOf[order[i].index()] == layers.count() - 1)
            next = i + 1;
    while (next + size <= order.size()) {
        RepeatedBlocks longer = layers;
        appendBlock(longer, order.begin() + std::ptrdiff_t(next), order.begin() + std::ptrdiff_t(next + size));
        if (!(namesApart(g, longer) && chainShaped(g, longer)))
            break;
        layers = std::move(longer);
        next += size;
    }
    return layers;
}

} // namespace

RepeatedBlocks layersOf(const Graph& g, const RepeatedBlocks& rb) {
    // The finest even split whose pieces are whole named layers and still chain up, and the layers of
    // that size after them.
    for (int parts = rb.period(); parts >= 2; --parts) {
        if (rb.period() % parts != 0)
            continue;
        RepeatedBlocks split = regrouped(rb, parts);
        if (namesApart(g, split) && chainShaped(g, split))
            return extendedOver(g, std::move(split));
    }
    return rb;
}

std::optional<RepeatedBlocks> findLayers(const Graph& g) {
    const std::optional<RepeatedBlocks> rb = findRepeatedBlocks(g);
    return rb ? std::optional<RepeatedBlocks>(layersOf(g, *rb)) : std::nullopt;
}

RepeatedBlocks RepeatedBlocks::run(int first, int count) const {
    RepeatedBlocks out;
    out.exitPosition = exitPosition;
    out.blockOf.assign(blockOf.size(), -1);
    out.positionOf.assign(positionOf.size(), -1);
    for (int b = 0; b < count; ++b) {
        const std::vector<OpId>& ops = blocks[std::size_t(first + b)];
        out.blocks.push_back(ops);
        for (std::size_t q = 0; q < ops.size(); ++q) {
            out.blockOf[ops[q].index()] = b;
            out.positionOf[ops[q].index()] = int(q);
        }
    }
    return out;
}

} // namespace shardscope
