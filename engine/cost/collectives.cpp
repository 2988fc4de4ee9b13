#include "engine/cost/collectives.h"

#include "engine/util/enum_names.h"

#include <algorithm>
#include <set>

namespace shardscope {

namespace {
constexpr EnumNames<CollectiveKind, 5> kNames{{{{CollectiveKind::AllReduce, "all-reduce"},
                                                {CollectiveKind::AllGather, "all-gather"},
                                                {CollectiveKind::ReduceScatter, "reduce-scatter"},
                                                {CollectiveKind::AllToAll, "all-to-all"},
                                                {CollectiveKind::SendRecv, "send-recv"}}}};
constexpr EnumNames<CollectiveKind, 5> kBadges{{{{CollectiveKind::AllReduce, "AR"},
                                                 {CollectiveKind::AllGather, "AG"},
                                                 {CollectiveKind::ReduceScatter, "RS"},
                                                 {CollectiveKind::AllToAll, "A2A"},
                                                 {CollectiveKind::SendRecv, "SR"}}}};
} // namespace

std::string_view collectiveName(CollectiveKind k) { return kNames.name(k); }

std::string_view collectiveBadge(CollectiveKind k) { return kBadges.name(k); }

double allReduceTime(int n, double bytes, double bw, double lat) {
    if (n <= 1)
        return 0;
    return 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * lat;
}

double allGatherTime(int n, double bytes, double bw, double lat) {
    if (n <= 1)
        return 0;
    return double(n - 1) / n * bytes / bw + double(n - 1) * lat;
}

double allToAllTime(int n, double bytes, double bw, double lat) { return allGatherTime(n, bytes, bw, lat); }

GroupSpan spanOfGroup(const Cluster& cluster, const std::vector<int>& ids) {
    GroupSpan span;
    span.size = static_cast<int>(ids.size());
    span.perLevel.assign(cluster.levels.size(), 1);
    int product = 1;
    int radix = 1;
    for (std::size_t l = 0; l < cluster.levels.size(); ++l) {
        std::set<int> positions;
        for (int id : ids)
            positions.insert((id / radix) % cluster.levels[l].size);
        span.perLevel[l] = static_cast<int>(positions.size());
        product *= span.perLevel[l];
        if (span.perLevel[l] > 1)
            span.slowestLevel = static_cast<int>(l);
        radix *= cluster.levels[l].size;
    }
    span.aligned = product == span.size;
    return span;
}

CommModel::CommModel(const Cluster& cluster, const Mesh& mesh) : cluster_(cluster) {
    spans_.resize(std::size_t(1) << mesh.rank());
    for (AxisSet set = 0; set < spans_.size(); ++set)
        for (const std::vector<int>& group : mesh.groups(set)) {
            GroupSpan span = spanOfGroup(cluster, group);
            if (std::find(spans_[set].begin(), spans_[set].end(), span) == spans_[set].end())
                spans_[set].push_back(std::move(span));
        }
}

CommModel::CommModel(const Cluster& cluster, const Mesh& mesh, int device) : cluster_(cluster) {
    spans_.resize(std::size_t(1) << mesh.rank());
    for (AxisSet set = 0; set < spans_.size(); ++set) {
        std::vector<int> group;
        const int leader = mesh.groupLeader(device, set);
        for (int d = 0; d < mesh.deviceCount(); ++d)
            if (mesh.groupLeader(d, set) == leader)
                group.push_back(d);
        spans_[set].push_back(spanOfGroup(cluster, group));
    }
}

const GroupSpan& CommModel::slowest(CollectiveKind kind, AxisSet axes, double bytes) const {
    const std::vector<GroupSpan>& all = spans_[axes];
    std::size_t best = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
        if (spanTime(all[i], kind, bytes) > spanTime(all[best], kind, bytes))
            best = i;
    return all[best];
}

double CommModel::time(CollectiveKind kind, AxisSet axes, double bytes) const {
    const std::vector<GroupSpan>& all = spans_[axes];
    double t = spanTime(all.front(), kind, bytes);
    for (std::size_t i = 1; i < all.size(); ++i)
        t = std::max(t, spanTime(all[i], kind, bytes));
    return t;
}

double CommModel::spanTime(const GroupSpan& s, CollectiveKind kind, double bytes) const {
    if (s.size <= 1 || bytes <= 0)
        return 0;
    const LinkLevel& slow = cluster_.levels[static_cast<std::size_t>(s.slowestLevel)];
    int levelsSpanned = 0;
    for (int n : s.perLevel)
        levelsSpanned += n > 1 ? 1 : 0;
    const bool hierarchical = s.aligned && levelsSpanned > 1;
    switch (kind) {
    case CollectiveKind::SendRecv:
        return bytes / slow.bandwidth + slow.latency;
    case CollectiveKind::AllToAll:
        return allToAllTime(s.size, bytes, slow.bandwidth, slow.latency);
    case CollectiveKind::AllReduce: {
        if (!hierarchical)
            return allReduceTime(s.size, bytes, slow.bandwidth, slow.latency);
        // Reduce-scatter inside each inner level, all-reduce across the outermost, all-gather back.
        double t = 0, chunk = bytes;
        for (int l = 0; l < s.slowestLevel; ++l) {
            const int n = s.perLevel[static_cast<std::size_t>(l)];
            const LinkLevel& lv = cluster_.levels[static_cast<std::size_t>(l)];
            t += 2.0 * allGatherTime(n, chunk, lv.bandwidth, lv.latency);
            chunk /= n;
        }
        return t + allReduceTime(s.perLevel[static_cast<std::size_t>(s.slowestLevel)], chunk, slow.bandwidth,
                                 slow.latency);
    }
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: {
        if (!hierarchical)
            return allGatherTime(s.size, bytes, slow.bandwidth, slow.latency);
        // Across the outer levels on the inner-level shard, then inside on the full buffer.
        double t = 0, chunk = bytes;
        for (int l = 0; l <= s.slowestLevel; ++l) {
            const int n = s.perLevel[static_cast<std::size_t>(l)];
            const LinkLevel& lv = cluster_.levels[static_cast<std::size_t>(l)];
            t += allGatherTime(n, chunk, lv.bandwidth, lv.latency);
            chunk /= n;
        }
        return t;
    }
    }
    return 0;
}

std::vector<double> CommModel::bytesPerLevel(CollectiveKind kind, AxisSet axes, double bytes) const {
    const GroupSpan& s = slowest(kind, axes, bytes);
    std::vector<double> out(cluster_.levels.size(), 0.0);
    if (s.size <= 1 || bytes <= 0)
        return out;
    int levelsSpanned = 0;
    for (int n : s.perLevel)
        levelsSpanned += n > 1 ? 1 : 0;
    const bool hierarchical = s.aligned && levelsSpanned > 1 &&
                              (kind == CollectiveKind::AllReduce || kind == CollectiveKind::AllGather ||
                               kind == CollectiveKind::ReduceScatter);
    if (!hierarchical) {
        out[std::size_t(s.slowestLevel)] = bytesSent(kind, axes, bytes);
        return out;
    }
    double chunk = bytes;
    for (int l = 0; l <= s.slowestLevel; ++l) {
        const int n = s.perLevel[std::size_t(l)];
        const double share = double(n - 1) / n * chunk;
        // An all-reduce scatters and gathers inside each inner level and all-reduces across the outermost.
        out[std::size_t(l)] = kind == CollectiveKind::AllReduce ? 2 * share : share;
        chunk /= n;
    }
    return out;
}

double CommModel::bytesSent(CollectiveKind kind, AxisSet axes, double bytes) const {
    const int n = spans_[axes].front().size;
    if (n <= 1)
        return 0;
    switch (kind) {
    case CollectiveKind::AllReduce:
        return 2.0 * (n - 1) / n * bytes;
    case CollectiveKind::SendRecv:
        return bytes;
    default:
        return double(n - 1) / n * bytes;
    }
}

} // namespace shardscope
