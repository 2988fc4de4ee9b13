#include "engine/sharding/resharding.h"

namespace shardscope {

ReshardSteps reshard(const TensorSharding& from, const TensorSharding& to, double fullBytes, const Mesh& mesh) {
    // Per mesh axis, as bit sets (an axis splits at most one dimension of a sharding): partial ->
    // all-reduce, or reduce-scatter when `to` splits on it; split on the same dimension -> nothing;
    // on another dimension -> all-to-all; on none -> all-gather; replicated -> split: a local slice.
    const AxisSet onMesh = mesh.rank() >= 32 ? ~AxisSet(0) : (AxisSet(1) << mesh.rank()) - 1;
    AxisSet source = 0, target = 0, stays = 0;
    for (std::size_t d = 0; d < from.dims.size(); ++d) {
        source |= from.dims[d];
        if (d < to.dims.size())
            stays |= from.dims[d] & to.dims[d];
    }
    for (AxisSet d : to.dims)
        target |= d;
    source &= onMesh;
    target &= onMesh;
    const AxisSet reducing = from.partial & ~to.partial & onMesh;
    const AxisSet plain = ~from.partial & onMesh;
    const AxisSet allReduce = reducing & ~target;
    const AxisSet reduceScatter = reducing & target;
    const AxisSet moved = plain & source & ~stays;
    const AxisSet allToAll = moved & target;
    const AxisSet allGather = moved & ~target;
    const AxisSet slice = plain & ~source & target;
    ReshardSteps steps;
    // Local size as the steps proceed: start from the producer's shard.
    double local = fullBytes / mesh.groupSize(from.splitAxes());
    if (allReduce) {
        steps.push_back({CollectiveKind::AllReduce, allReduce, local});
    }
    if (reduceScatter) {
        steps.push_back({CollectiveKind::ReduceScatter, reduceScatter, local});
        local /= mesh.groupSize(reduceScatter);
    }
    local /= mesh.groupSize(slice);
    if (allToAll)
        steps.push_back({CollectiveKind::AllToAll, allToAll, local});
    if (allGather) {
        local *= mesh.groupSize(allGather);
        steps.push_back({CollectiveKind::AllGather, allGather, local});
    }
    return steps;
}

} // namespace shardscope
