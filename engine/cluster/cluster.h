#pragma once
// The hardware: devices and the levels of links between them (docs/DESIGN.md, Cluster and mesh).

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
    double memoryBandwidth = 0;        ///< bytes/s of device memory (HBM), the specification
    double memoryEfficiency = 1;       ///< achieved fraction of memoryBandwidth by memory-bound kernels
    double efficiency = 0.6;           ///< achieved fraction of peak for large kernels
    /// Achieved fraction of peak of the fused attention kernel: FlashAttention-2 reaches 50-73% on
    /// A100 forward and backward (Dao 2023); the low end, until calibrated.
    double attentionEfficiency = 0.5;
    double launchFloor = 4e-6;         ///< minimum time of any kernel, seconds
    /// How much slower compute runs while communication kernels run beside it (they take SMs and
    /// memory bandwidth): a kernel overlapped with a collective takes (1 + overlapSlowdown) times as
    /// long. 0.189: the average slowdown measured over GPT and Llama training on A100, H100, MI250 and
    /// MI210 ("Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
    /// Learning: Performance and Power Implications", arXiv 2507.03114, 2025; 40% at most).
    double overlapSlowdown = 0.189;

    /// Peak FLOP/s for `t`; falls back to the fp32 figure, then to the largest one.
    double peakFor(DType t) const;
    /// The memory bandwidth memory-bound kernels achieve, bytes/s.
    double achievedMemoryBandwidth() const { return memoryBandwidth * memoryEfficiency; }
};

/// One level of the interconnect, innermost first: `size` children per group at this level.
///
/// `bandwidth` is the link's specification; a collective achieves `efficiency` of it at large
/// messages (NCCL's bus bandwidth over the spec: 232.5 of 300 GB/s on A100 NVLink, 24 of 25 GB/s
/// per HDR NIC), pays `baseLatency` once (launch and protocol set-up) and `latency` per ring step,
/// so small messages reach a fraction of it.
struct LinkLevel {
    std::string name;       ///< "node", "cluster", "rack"...
    int size = 1;           ///< devices per node at level 0; nodes per cluster at level 1...
    double bandwidth = 0;   ///< bytes/s per device per direction across this level
    double latency = 0;     ///< seconds per ring step (one message hop) across this level
    double efficiency = 1;  ///< achieved fraction of `bandwidth` by large collectives, (0, 2]
    double baseLatency = 0; ///< seconds every collective whose outermost level this is pays once

    /// The bandwidth collectives achieve per device across this level.
    double achievedBandwidth() const { return bandwidth * efficiency; }
};

/// A cluster: identical devices and a hierarchy of link levels.
struct Cluster {
    std::string name;
    DeviceSpec device;
    std::vector<LinkLevel> levels; ///< innermost first; level 0 is the node

    /// Number of devices (product of level sizes).
    int deviceCount() const;
    /// Throws InputError naming `where` when the levels give no devices or more than kMaxDevices.
    void checkDeviceCount(const std::string& where) const;
    /// Devices per node (size of level 0).
    int devicesPerNode() const { return levels.empty() ? 1 : levels.front().size; }
    /// Checks figures are positive and levels present. Throws InputError naming the field.
    void validate(const std::string& where) const;
};

} // namespace shardscope
