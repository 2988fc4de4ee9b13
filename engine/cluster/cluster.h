#pragma once
// The hardware: devices and the levels of links between them (DESIGN 2.2).

#include "engine/ir/dtype.h"

#include <map>
#include <string>
#include <vector>

namespace shardscope {

/// One accelerator's figures.
struct DeviceSpec {
    std::string name;
    std::map<DType, double> peakFlops; ///< dense FLOP/s per dtype
    double memoryBytes = 0;
    double memoryBandwidth = 0;        ///< bytes/s of device memory (HBM)
    double efficiency = 0.6;           ///< achieved fraction of peak for large kernels
    /// Achieved fraction of peak of the fused attention kernel: FlashAttention-2 reaches 50-73% on
    /// A100 forward and backward (Dao 2023); the low end, until calibrated.
    double attentionEfficiency = 0.5;
    double launchFloor = 4e-6;         ///< minimum time of any kernel, seconds

    /// Peak FLOP/s for `t`; falls back to the fp32 figure, then to the largest one.
    double peakFor(DType t) const;
};

/// One level of the interconnect, innermost first: `size` children per group at this level.
struct LinkLevel {
    std::string name;       ///< "node", "cluster", "rack"...
    int size = 1;           ///< devices per node at level 0; nodes per cluster at level 1...
    double bandwidth = 0;   ///< bytes/s per device per direction across this level
    double latency = 0;     ///< seconds per message hop
};

/// A cluster: identical devices and a hierarchy of link levels.
struct Cluster {
    std::string name;
    DeviceSpec device;
    std::vector<LinkLevel> levels; ///< innermost first; level 0 is the node

    /// Number of devices (product of level sizes).
    int deviceCount() const;
    /// Devices per node (size of level 0).
    int devicesPerNode() const { return levels.empty() ? 1 : levels.front().size; }
    /// Checks figures are positive and levels present. Throws InputError naming the field.
    void validate(const std::string& where) const;
};

} // namespace shardscope
