#include "engine/cost/collectives.h"

#include "engine/util/enum_names.h"

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

CommModel::CommModel(const Cluster& cluster, const Mesh& mesh) : cluster_(cluster) {
    const std::size_t rank = mesh.rank();
    spans_.resize(std::size_t(1) << rank);
    for (AxisSet set = 0; set < spans_.size(); ++set) {
        // Device ids of the group containing device 0.
        std::vector<int> ids{0};
        for (std::size_t i = 0; i < rank; ++i) {
            if (!(set & (AxisSet(1) << i)))
                continue;
            const AxisId a(i);
            std::vector<int> next;
            for (int id : ids)
                for (int k = 0; k < mesh.size(a); ++k)
                    next.push_back(id + k * mesh.stride(a));
            ids.swap(next);
        }
        GroupSpan& span = spans_[set];
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
    }
}

double CommModel::time(CollectiveKind kind, AxisSet axes, double bytes) const {
    const GroupSpan& s = spans_[axes];
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
    const GroupSpan& s = spans_[axes];
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
    const int n = spans_[axes].size;
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
