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
};

/// Collective costs for one cluster and mesh, with the span of every axis set precomputed.
class CommModel {
public:
    /// Precomputes spans for all 2^rank axis sets. Assumes the mesh fits the cluster.
    CommModel(const Cluster& cluster, const Mesh& mesh);

    /// Time of collective `kind` over the devices spanned by `axes`, with `bytes` as in the header.
    double time(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Bytes each device sends for the collective (the traffic it adds to links).
    double bytesSent(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Bytes each device sends on each link level for the collective, split the way time() splits a
    /// hierarchical collective; sums to bytesSent() for flat groups.
    std::vector<double> bytesPerLevel(CollectiveKind kind, AxisSet axes, double bytes) const;
    /// Span of the group of device 0 along `axes`.
    const GroupSpan& span(AxisSet axes) const { return spans_[axes]; }

private:
    const Cluster& cluster_;
    std::vector<GroupSpan> spans_;
};

} // namespace shardscope
