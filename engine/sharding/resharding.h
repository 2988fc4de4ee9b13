#pragma once
// Resharding between a producer's sharding and a consumer's wanted sharding (docs/DESIGN.md, Sharding and resharding).
//
// Per mesh axis: partial -> all-reduce, or reduce-scatter when the target splits a dimension on that
// axis; split on dim i -> dim j: all-to-all; split -> replicated: all-gather; replicated -> split:
// a local slice (free). Collectives of the same kind are merged into one over the union of axes.

#include "engine/cost/collectives.h"
#include "engine/sharding/strategy.h"

#include <array>
#include <vector>

namespace shardscope {

/// One collective of a resharding: its kind, the axes it runs over, and `bytes` as collectives.h defines.
struct ReshardStep {
    CollectiveKind kind;
    AxisSet axes = 0;
    double bytes = 0;
};

/// At most one step of each kind, in execution order, without allocation (resharding sits on the
/// search's hottest path).
class ReshardSteps {
public:
    /// Appends `step`. Assumes fewer than four steps so far.
    void push_back(const ReshardStep& step) { steps_[count_++] = step; }
    /// Number of steps.
    std::size_t size() const { return count_; }
    /// True when the resharding is free.
    bool empty() const { return count_ == 0; }
    /// Step `i`.
    const ReshardStep& operator[](std::size_t i) const { return steps_[i]; }
    /// Iteration over the steps.
    const ReshardStep* begin() const { return steps_.data(); }
    /// End of the steps.
    const ReshardStep* end() const { return steps_.data() + count_; }

private:
    std::array<ReshardStep, 4> steps_{};
    std::size_t count_ = 0;
};

/// The collectives turning `from` into `to` for a tensor of `fullBytes` (unsharded), in execution order:
/// reductions, all-to-alls, then all-gathers. Axes partial in both stay partial for free.
/// Assumes both shardings have the same rank.
ReshardSteps reshard(const TensorSharding& from, const TensorSharding& to, double fullBytes, const Mesh& mesh);

} // namespace shardscope
