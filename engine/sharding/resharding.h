#pragma once
// Resharding between a producer's sharding and a consumer's wanted sharding (DESIGN 2.3).
//
// Per mesh axis: partial -> all-reduce, or reduce-scatter when the target splits a dimension on that
// axis; split on dim i -> dim j: all-to-all; split -> replicated: all-gather; replicated -> split:
// a local slice (free). Collectives of the same kind are merged into one over the union of axes.

#include "engine/cost/collectives.h"
#include "engine/sharding/strategy.h"

#include <vector>

namespace shardscope {

/// One collective of a resharding: its kind, the axes it runs over, and `bytes` as collectives.h defines.
struct ReshardStep {
    CollectiveKind kind;
    AxisSet axes = 0;
    double bytes = 0;
};

/// The collectives turning `from` into `to` for a tensor of `fullBytes` (unsharded), in execution order:
/// reductions, all-to-alls, then all-gathers. Axes partial in both stay partial for free.
/// Assumes both shardings have the same rank.
std::vector<ReshardStep> reshard(const TensorSharding& from, const TensorSharding& to, double fullBytes,
                                 const Mesh& mesh);

} // namespace shardscope
