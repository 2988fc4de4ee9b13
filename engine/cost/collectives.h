#pragma once
// Alpha-beta costs of collectives (DESIGN 2.5), in one place.
//
// For a group of n devices, per-device bandwidth B and latency a, with S the bytes of the full
// (unsharded-on-that-group) buffer:
//   all-reduce              2(n-1)/n * S/B + 2(n-1)a
//   all-gather, reduce-scatter (n-1)/n * S/B + (n-1)a      (S = the gathered / un-scattered size)
//   all-to-all              (n-1)/n * S/B + (n-1)a        (S = the bytes each device holds)
//   send/recv (halo)        S/B + a                       (S = bytes each device sends)
// Groups spanning several link levels use the hierarchical form: reduce-scatter inside each level
// from the innermost out, all-reduce across the outermost level, all-gather back in.

#include "engine/cluster/cluster.h"
#include "engine/cluster/mesh.h"

#include <string_view>
#include <vector>

namespace shardscope {

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// Short name: "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv".
std::string_view collectiveName(CollectiveKind k);
/// Badge text: "AR", "AG", "RS", "A2A", "SR".
std::string_view collectiveBadge(CollectiveKind k);

/// Flat ring all-reduce time over `n` devices of `bytes`, bandwidth `bw`, latency `lat`.
double allReduceTime(int n, double bytes, double bw, double lat);
/// Flat all-gather (or reduce-scatter) time; `bytes` is the gathered size.
double allGatherTime(int n, double bytes, double bw, double lat);
/// Flat all-to-all time; `bytes` is what each device holds.
double allToAllTime(int n, double bytes, double bw, double lat);

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
    /// Bytes each device sends for the collective (the traffic it adds to links).
    double bytesSent(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Bytes each device sends on each link level for the collective (in its slowest group), split
    /// the way time() splits a hierarchical collective; sums to bytesSent() for flat groups.
    std::vector<double> bytesPerLevel(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// The distinct spans of the groups along `axes` (one on a mesh that nests into the levels).
    const std::vector<GroupSpan>& spans(AxisSet axes) const { return spans_[axes]; }

private:
    double spanTime(const GroupSpan& s, CollectiveKind kind, double bytes) const;
    const GroupSpan& slowest(CollectiveKind kind, AxisSet axes, double bytes) const;

    const Cluster& cluster_;
    std::vector<std::vector<GroupSpan>> spans_;
};

} // namespace shardscope
