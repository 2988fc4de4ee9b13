#include "engine/sharding/resharding.h"

namespace shardscope {

namespace {

int dimOf(const TensorSharding& t, std::size_t axis) {
    for (std::size_t d = 0; d < t.dims.size(); ++d)
        if (t.dims[d] & (AxisSet(1) << axis))
            return static_cast<int>(d);
    return -1;
}

} // namespace

ReshardSteps reshard(const TensorSharding& from, const TensorSharding& to, double fullBytes, const Mesh& mesh) {
    AxisSet allReduce = 0, reduceScatter = 0, allToAll = 0, allGather = 0, slice = 0;
    for (std::size_t a = 0; a < mesh.rank(); ++a) {
        const AxisSet bit = AxisSet(1) << a;
        const int src = dimOf(from, a);
        const int dst = dimOf(to, a);
        if (from.partial & bit) {
            if (to.partial & bit)
                continue;
            if (dst >= 0)
                reduceScatter |= bit;
            else
                allReduce |= bit;
        } else if (src >= 0) {
            if (dst == src)
                continue;
            if (dst >= 0)
                allToAll |= bit;
            else
                allGather |= bit;
        } else if (dst >= 0) {
            slice |= bit;
        }
    }
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
