#pragma once
// Costs of collectives as NCCL runs them (docs/DESIGN.md, Costs), in one place.
//
// For a group of n devices with bus bandwidth B and per-step latency a, with S the bytes of the
// full (unsharded-on-that-group) buffer:
//   ring all-reduce            2(n-1)/n * S/B + 2(n-1)a
//   tree all-reduce            2 S/B + 2 (chain inside the node + log2 of each outer level) a
//   all-reduce                 the faster of the two, as NCCL's tuner picks (trees for small
//                              messages over many nodes, rings for large ones)
//   all-gather, reduce-scatter (n-1)/n * S/B + (n-1)a      (S = the gathered / un-scattered size)
//   all-to-all                 per level, the bytes that leave one child of it over its links
//   send/recv (halo)           S/B + a                     (S = bytes each device sends)
// S/B is the slowest level's share: a ring over a group with k of its devices inside each child of
// a level sends 1/k of its bytes across that level (the ring leaves each child once per channel,
// NCCL spreads the channels over every device's link), the rest over the inner levels; each level
// moves its share at its achieved bandwidth (spec x efficiency), all levels at once. a is the
// latency of the outermost level spanned: every ring step waits for its slowest hop. Every
// collective also pays that level's base latency once (kernel launch and protocol set-up).
// Worked example, all-reduce of 1 GB over 2 DGX A100 nodes (n 16, NVLink 300 GB/s x 0.775, HDR
// 25 GB/s x 0.96 per GPU): the ring sends 2 x 15/16 x 1 GB = 1.875 GB per device, 7/8 of it on
// NVLink (7.06 ms at 232.5 GB/s) and 1/8 across nodes (9.77 ms at 24 GB/s), so 9.77 ms + 30 a
// + base: a bus bandwidth of 192 GB/s, the 8 NICs' 8 x 24.

#include "engine/cluster/cluster.h"
#include "engine/cluster/mesh.h"
#include "engine/cost/level_values.h"

#include <string_view>
#include <vector>

namespace shardscope {

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// Short name: "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv".
std::string_view collectiveName(CollectiveKind k);
/// Badge text: "AR", "AG", "RS", "A2A", "SR".
std::string_view collectiveBadge(CollectiveKind k);

/// What a collective's time is made of, as the simulator shares links between concurrent
/// collectives: `latency` seconds that no other transfer slows (set-up and ring steps), and per link
/// level the seconds its bytes take there at the level's achieved bandwidth. Alone, a collective
/// takes latency + the largest of levelSeconds (the levels move their shares at once).
/// Example: the 1 GB all-reduce over 2 DGX A100 nodes of the header: levelSeconds 7.06 ms (NVLink)
/// and 9.77 ms (HDR), latency 30 x 2.32 us + 15.26 us: 9.85 ms.
struct CommShape {
    double latency = 0;
    LevelValues levelSeconds; ///< per level, innermost first

    /// Seconds alone: latency + the largest level's.
    double seconds() const;
    /// The same collective scaled to `fraction` of its bytes and latencies (a share of a bucket).
    CommShape scaled(double fraction) const;
};

/// How a group of devices spreads over the link levels.
struct GroupSpan {
    int size = 1;                   ///< devices in the group
    std::vector<int> perLevel;      ///< distinct positions the group takes at each level
    bool aligned = true;            ///< size == product of perLevel (a clean hierarchical group)
    int slowestLevel = 0;           ///< outermost level with perLevel > 1

    bool operator==(const GroupSpan&) const = default;
};

/// How the devices `ids` spread over the levels of `cluster`.
GroupSpan spanOfGroup(const Cluster& cluster, const std::vector<int>& ids);

/// Collective costs for one cluster and mesh, with the spans of every axis set precomputed.
///
/// On a mesh whose axes nest into the link levels (every group of an axis set spreads the same way)
/// all groups cost the same. Otherwise, say `model=3` on 4-GPU nodes, some groups straddle a node
/// boundary: the whole-mesh model costs a collective at its slowest group, since the SPMD step waits
/// for it, and a per-device model costs the groups of one device (the simulator's device classes).
class CommModel {
public:
    /// Every group of all 2^rank axis sets; a collective costs its slowest group.
    /// Assumes the mesh fits the cluster.
    CommModel(const Cluster& cluster, const Mesh& mesh);
    /// Only the groups containing `device`.
    CommModel(const Cluster& cluster, const Mesh& mesh, int device);

    /// Time of collective `kind` over the devices spanned by `axes`, with `bytes` as in the header.
    double time(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Seconds of a collective on `bytes` that the framework coalesces with others into buckets of
    /// `bucket` bytes (gradient reductions, parameter gathers): one smaller than a bucket costs its
    /// share of a whole bucket's collective, bytes / bucket x time(bucket), so a bucket of small
    /// tensors pays the latencies once; a larger one (or `bucket` 0) costs time(bytes).
    double coalescedTime(CollectiveKind kind, AxisSet axes, double bytes, double bucket) const;
    /// The latency and per-level seconds of coalescedTime(kind, axes, bytes, bucket), in its slowest
    /// group: shape(...).seconds() == coalescedTime(...).
    CommShape shape(CollectiveKind kind, AxisSet axes, double bytes, double bucket) const;
    /// Bytes each device sends for the collective (the traffic it adds to links).
    double bytesSent(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Bytes each device sends on each link level for the collective (in its slowest group): a ring
    /// over a group with k of its devices inside each node sends 1/k of its bytes across nodes.
    /// Sums to bytesSent().
    std::vector<double> bytesPerLevel(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Number of link levels.
    std::size_t levelCount() const { return levels_.size(); }
    /// The link level whose links carry the outermost traffic of the groups along `axes` (0 for a
    /// single device): the outermost level they span, or the scale-up domain's outermost level when
    /// that level's links carry it (linkOf).
    std::size_t slowestLevel(AxisSet axes) const { return linkOf(std::size_t(spans_[axes].front().slowestLevel)); }
    /// The level whose links carry level `l`'s traffic. The levels of a scale-up domain
    /// (Cluster::scaleUpSize: an NVL72's trays and rack) reach each other through one set of NVLink
    /// ports per GPU, so their shares of a collective add up on the domain's outermost level;
    /// every other level has links of its own, and its share runs beside the others'.
    std::size_t linkOf(std::size_t l) const { return l < sharedLinks_ ? sharedLinks_ - 1 : l; }
    /// The distinct spans of the groups along `axes` (one on a mesh that nests into the levels).
    const std::vector<GroupSpan>& spans(AxisSet axes) const { return spans_[axes]; }

private:
    double spanTime(const GroupSpan& s, CollectiveKind kind, double bytes) const { return spanShape(s, kind, bytes).seconds(); }
    CommShape spanShape(const GroupSpan& s, CollectiveKind kind, double bytes) const;
    double treeLatency(const GroupSpan& s) const;
    LevelValues levelShares(const GroupSpan& s, CollectiveKind kind) const;
    LevelValues levelSeconds(const GroupSpan& s, CollectiveKind kind, double sent) const;
    const GroupSpan& slowest(CollectiveKind kind, AxisSet axes, double bytes) const;

    std::vector<LinkLevel> levels_;  ///< the cluster's link levels, innermost first
    std::size_t sharedLinks_ = 1;    ///< the innermost levels that share the device's scale-up links
    std::vector<std::vector<GroupSpan>> spans_;
};

} // namespace shardscope
