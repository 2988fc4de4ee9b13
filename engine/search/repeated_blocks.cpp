#include "engine/search/repeated_blocks.h"

#include <functional>
#include <string>

namespace shardscope {

namespace {

/// Structural fingerprint of the op at topological position `pos`.
std::size_t fingerprint(const Graph& g, OpId o, int pos, const std::vector<int>& topoPos) {
    const Op& op = g.op(o);
    std::string s = std::string(opKindName(op.kind)) + "|" + op.rule.toString() + "|" +
                    (op.attentionCore ? "core|" : "|") + op.hints.batch + op.hints.tensor + op.hints.sequence +
                    op.hints.expert + "|";
    for (TensorId t : op.inputs) {
        const Tensor& tensor = g.tensor(t);
        s += std::string(dtypeName(tensor.dtype)) + std::string(tensorRoleName(tensor.role));
        for (auto d : tensor.shape)
            s += "," + std::to_string(d);
        // Where the input comes from, relative to this op; a parameter from whether it is shared.
        if (tensor.producer.valid())
            s += "@" + std::to_string(pos - topoPos[tensor.producer.index()]);
        else if (tensor.role == TensorRole::Parameter)
            s += tensor.consumers.size() > 1 ? "@shared" : "@own";
        s += ";";
    }
    return std::hash<std::string>()(s);
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

    // For each period p, maximal runs where fp[k] == fp[k + p]; a run [i, j) gives blocks starting at i.
    int bestStart = 0, bestPeriod = 0, bestCount = 0;
    for (int p = 1; 2 * p <= n; ++p) {
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

} // namespace shardscope
