#include "engine/search/mesh_equivalence.h"

#include "engine/cost/collectives.h"

#include <algorithm>
#include <numeric>

namespace shardscope {

namespace {

/// The axis set `set` of `a` seen on `b` through `p`.
AxisSet mapped(AxisSet set, const std::vector<std::size_t>& p) {
    AxisSet out = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (set & (AxisSet(1) << i))
            out |= AxisSet(1) << p[i];
    return out;
}

/// True when both lists hold the same spans (CommModel prices a collective at its slowest).
bool sameSpans(const std::vector<GroupSpan>& x, const std::vector<GroupSpan>& y) {
    auto within = [](const std::vector<GroupSpan>& from, const std::vector<GroupSpan>& in) {
        return std::all_of(from.begin(), from.end(),
                           [&](const GroupSpan& s) { return std::find(in.begin(), in.end(), s) != in.end(); });
    };
    return within(x, y) && within(y, x);
}

} // namespace

std::optional<std::vector<std::size_t>> equivalentAxes(const Cluster& cluster, const Mesh& a, AxisSet keepA,
                                                        const Mesh& b, AxisSet keepB) {
    if (a.rank() != b.rank() || a.deviceCount() != b.deviceCount())
        return std::nullopt;
    const CommModel ca(cluster, a), cb(cluster, b);
    std::vector<std::size_t> p(a.rank());
    std::iota(p.begin(), p.end(), 0);
    do {
        bool same = mapped(keepA, p) == keepB;
        for (std::size_t i = 0; same && i < p.size(); ++i)
            same = a.axes[i].size == b.axes[p[i]].size;
        for (AxisSet set = 0; same && set < (AxisSet(1) << a.rank()); ++set)
            same = sameSpans(ca.spans(set), cb.spans(mapped(set, p)));
        if (same)
            return p;
    } while (std::next_permutation(p.begin(), p.end()));
    return std::nullopt;
}

} // namespace shardscope
