#include "engine/cost/collectives.h"

#include "engine/util/enum_names.h"
#include "engine/util/error.h"

#include <algorithm>
#include <cmath>
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

double CommShape::seconds() const {
    double most = 0;
    for (double t : levelSeconds)
        most = std::max(most, t);
    return latency + most;
}

CommShape CommShape::scaled(double fraction) const {
    CommShape s{latency * fraction, levelSeconds};
    for (double& t : s.levelSeconds)
        t *= fraction;
    return s;
}

namespace {

/// How many innermost levels of `cluster` are its scale-up domain (Cluster::scaleUpSize).
std::size_t scaleUpLevels(const Cluster& cluster) {
    std::size_t n = 1;
    while (n < cluster.levels.size() && cluster.levels[n].bandwidth >= cluster.levels.front().bandwidth)
        ++n;
    return n;
}

/// The cluster's link levels, refused when more than LevelValues holds.
const std::vector<LinkLevel>& checkedLevels(const Cluster& cluster) {
    if (cluster.levels.size() > std::size_t(kMaxLinkLevels))
        throw InputError("cluster '" + cluster.name + "' has " + std::to_string(cluster.levels.size()) +
                         " link levels; at most " + std::to_string(kMaxLinkLevels) + " are supported");
    return cluster.levels;
}

} // namespace

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

CommModel::CommModel(const Cluster& cluster, const Mesh& mesh)
    : levels_(checkedLevels(cluster)), sharedLinks_(scaleUpLevels(cluster)) {
    spans_.resize(std::size_t(1) << mesh.rank());
    for (AxisSet set = 0; set < spans_.size(); ++set)
        for (const std::vector<int>& group : mesh.groups(set)) {
            GroupSpan span = spanOfGroup(cluster, group);
            if (std::find(spans_[set].begin(), spans_[set].end(), span) == spans_[set].end())
                spans_[set].push_back(std::move(span));
        }
    // time() and slowest() read the first span: a mesh without devices has none (bounded meshes never).
    if (spans_.empty() || spans_.front().empty())
        throw InputError("mesh " + mesh.toString() + " has no devices");
}

CommModel::CommModel(const Cluster& cluster, const Mesh& mesh, int device)
    : levels_(checkedLevels(cluster)), sharedLinks_(scaleUpLevels(cluster)) {
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

double CommModel::coalescedTime(CollectiveKind kind, AxisSet axes, double bytes, double bucket) const {
    if (bytes >= bucket)
        return time(kind, axes, bytes);
    return bytes / bucket * time(kind, axes, bucket);
}

CommShape CommModel::shape(CollectiveKind kind, AxisSet axes, double bytes, double bucket) const {
    if (bytes >= bucket)
        return spanShape(slowest(kind, axes, bytes), kind, bytes);
    return spanShape(slowest(kind, axes, bucket), kind, bucket).scaled(bytes / bucket);
}

LevelValues CommModel::levelShares(const GroupSpan& s, CollectiveKind kind) const {
    LevelValues share(levels_.size());
    if (!s.aligned || kind == CollectiveKind::SendRecv) {
        share[std::size_t(s.slowestLevel)] = 1;
        return share;
    }
    // inside = the group's devices in one child of level l (one device at level 0); a ring
    // crosses level l on 1/inside of its hops and the levels inside it carry the rest, an
    // all-to-all sends across level l to the peers in its parent's child outside its own child.
    double inside = 1;
    for (int l = 0; l <= s.slowestLevel; ++l) {
        const bool outermost = l == s.slowestLevel;
        const double next = outermost ? s.size : inside * s.perLevel[std::size_t(l)];
        if (kind == CollectiveKind::AllToAll)
            share[std::size_t(l)] = (next - inside) / (s.size - 1);
        else
            share[std::size_t(l)] = outermost ? 1 / inside : 1 / inside - 1 / next;
        inside = next;
    }
    return share;
}

LevelValues CommModel::levelSeconds(const GroupSpan& s, CollectiveKind kind, double sent) const {
    const LevelValues share = levelShares(s, kind);
    LevelValues t(levels_.size());
    for (std::size_t l = 0; l < t.size(); ++l)
        if (share[l] > 0)
            t[linkOf(l)] += sent * share[l] / levels_[l].achievedBandwidth();
    return t;
}

double CommModel::treeLatency(const GroupSpan& s) const {
    // NCCL's tree: a chain through the devices inside a node, a binary tree over each outer level;
    // reduce up, broadcast down.
    double steps = 0;
    for (std::size_t l = 0; l < s.perLevel.size(); ++l) {
        const int n = s.perLevel[l];
        steps += (l == 0 ? n - 1 : std::ceil(std::log2(double(n)))) * levels_[l].latency;
    }
    return 2 * steps;
}

CommShape CommModel::spanShape(const GroupSpan& s, CollectiveKind kind, double bytes) const {
    if (s.size <= 1 || bytes <= 0)
        return CommShape{0, LevelValues(levels_.size())};
    const int n = s.size;
    const LinkLevel& outer = levels_[static_cast<std::size_t>(s.slowestLevel)];
    const double hop = outer.latency;
    CommShape out;
    switch (kind) {
    case CollectiveKind::SendRecv:
        out = CommShape{hop, levelSeconds(s, kind, bytes)};
        break;
    case CollectiveKind::AllToAll:
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
        out = CommShape{double(n - 1) * hop, levelSeconds(s, kind, double(n - 1) / n * bytes)};
        break;
    case CollectiveKind::AllReduce: {
        // The faster of ring and tree, as NCCL's tuner picks.
        const CommShape ring{2.0 * (n - 1) * hop, levelSeconds(s, kind, 2.0 * (n - 1) / n * bytes)};
        const CommShape tree{treeLatency(s), levelSeconds(s, kind, 2.0 * bytes)};
        out = tree.seconds() < ring.seconds() ? tree : ring;
        break;
    }
    }
    out.latency += outer.baseLatency;
    return out;
}

std::vector<double> CommModel::bytesPerLevel(CollectiveKind kind, AxisSet axes, double bytes) const {
    const GroupSpan& s = slowest(kind, axes, bytes);
    std::vector<double> out(levels_.size(), 0.0);
    if (s.size <= 1 || bytes <= 0)
        return out;
    const LevelValues share = levelShares(s, kind);
    const double sent = bytesSent(kind, axes, bytes);
    for (std::size_t l = 0; l < out.size(); ++l)
        out[l] = sent * share[l];
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
