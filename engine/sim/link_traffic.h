#pragma once
// Traffic on the links of each level: totals and the busiest pair of endpoints (devices inside a
// node, nodes across the cluster), assuming ring collectives in device order.

#include "engine/cluster/cluster.h"
#include "engine/cluster/mesh.h"

#include <map>
#include <string>
#include <vector>

namespace shardscope {

/// Bytes per step from one endpoint to the next in a ring: devices at level 0, nodes at level 1...
struct PairTraffic {
    int from = 0;
    int to = 0;
    double bytes = 0;
};

/// Bytes per step sent over one link level, summed over every device, per endpoint pair, and its
/// busiest link.
struct LevelTraffic {
    std::string level;
    double bytesPerStep = 0;
    std::vector<PairTraffic> pairs;  ///< every pair that carries traffic, ordered by (from, to)
    std::string busiestPair;       ///< "device 3 -> device 4" or "node 0 -> node 1"; "-" when idle
    double busiestPairBytes = 0;
};

/// Pipelined: the bytes one device of a stage sends per step point to point, to the device at its
/// position in the next stage (activations; stage P-1 to stage 0 under the interleaved schedule) and
/// in the previous one (their gradients).
struct StageSends {
    double forward = 0;
    double backward = 0;
};

/// Per level traffic from `perClass`: per device class (`classOf` gives each device's), for each axis
/// set, the bytes one device sends per level per step (CommModel::bytesPerLevel summed over the
/// step's collectives on that set), ringed in device order. Pipelined, `sends` per stage (stage of
/// device d: d / (devices / sends.size()), the pipe axis major-most) go to their one peer each,
/// over the lowest level that joins the two.
std::vector<LevelTraffic> linkTraffic(const Cluster& cluster, const Mesh& mesh, const std::vector<int>& classOf,
                                      const std::vector<std::map<AxisSet, std::vector<double>>>& perClass,
                                      const std::vector<StageSends>& sends = {});

} // namespace shardscope
