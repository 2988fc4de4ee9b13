#pragma once
// Meshes that price every plan the same up to the order of their axes. On a node whose GPUs all
// share one switch, data=64,seq=2,model=4 and data=64,seq=4,model=2 are such a pair: every group of
// two (or four) GPUs inside a node costs the same whichever GPUs it holds, so a strategy on one is
// the other's strategy with seq and model swapped, at the same time and memory. The search solves
// one of each class.

#include "engine/cluster/cluster.h"
#include "engine/cluster/mesh.h"

#include <optional>
#include <vector>

namespace shardscope {

/// A permutation `p` of the axes of `a` onto those of `b` (axis i of `a` is axis p[i] of `b`) under
/// which the two meshes on `cluster` have the same axis sizes and, for every set of axes, groups
/// that spread over the link levels the same ways (so CommModel prices every collective the same);
/// `keepA` must map to `keepB` (the axes ZeRO shards over). Nothing when there is none.
std::optional<std::vector<std::size_t>> equivalentAxes(const Cluster& cluster, const Mesh& a, AxisSet keepA,
                                                        const Mesh& b, AxisSet keepB);

} // namespace shardscope
