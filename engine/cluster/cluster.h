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
    /// Achieved fraction of the FP8 peak by the FP8 GEMMs of a step in FP8 or MXFP8 (Precision).
    double fp8Efficiency = 0.6;
    /// Whether the tensor cores take block-scaled MX formats (MXFP8, MXFP4): Blackwell's do, Hopper's not.
    bool mxScaling = false;
    /// Whether the tensor cores read FP8 operands in any layout (Blackwell), so that FP8 with one scale
    /// per tensor keeps no transposed copy; Hopper's read FP8 only as "TN" (Transformer Engine's
    /// is_non_tn_fp8_gemm_supported).
    bool fp8AnyLayout = false;
    /// Dense FP4 FLOP/s (NVFP4 / MXFP4 on Blackwell); 0 without FP4 tensor cores. Shown, not yet a precision.
    double fp4Flops = 0;
    /// Achieved fraction of peak of the fused attention kernel: FlashAttention-2 reaches 50-73% on
    /// A100 forward and backward (Dao 2023); the low end, until calibrated.
    double attentionEfficiency = 0.5;
    /// Achieved fraction of peak of the fused attention kernel when it also drops out attention
    /// probabilities: the kernel draws a random number per score (Philox on the CUDA cores, which
    /// run at a sixteenth of the tensor cores' rate) in the forward and again in the backward. The
    /// default and cluster files without the field take attentionEfficiency (dropout free);
    /// calibrated for the H100 on the Megatron-LM README's runs.
    double attentionDropoutEfficiency = 0.5;
    double launchFloor = 4e-6;         ///< minimum time of any kernel, seconds
    /// How much slower compute runs while communication kernels run beside it (they take SMs and
    /// memory bandwidth): a kernel overlapped with a collective takes (1 + overlapSlowdown) times as
    /// long. 0.189: the average slowdown measured over GPT and Llama training on A100, H100, MI250 and
    /// MI210 ("Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
    /// Learning: Performance and Power Implications", arXiv 2507.03114, 2025; 40% at most).
    double overlapSlowdown = 0.189;

    /// Peak FLOP/s for `t`; falls back to bf16's for fp8, else to the fp32 figure, then to the largest one.
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
    /// The most children one group at this level can hold (an NVL72 rack's NVLink domain: 18 trays);
    /// 0: no limit. withNodes() fills groups up to it.
    int capacity = 0;

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
    /// Devices per node (size of level 0): the GPUs of one host (a DGX, an NVL72 compute tray).
    int devicesPerNode() const { return levels.empty() ? 1 : levels.front().size; }
    /// Devices of one scale-up domain: the innermost levels whose links are as fast as the node's
    /// (a DGX node's 8, an NVL72 rack's up to 72 over NVLink switches).
    int scaleUpSize() const;
    /// Checks figures are positive and levels present. Throws InputError naming the field.
    void validate(const std::string& where) const;
};

/// `cluster` with `nodes` nodes (groups of level 0). Two levels: level 1 holds them (a cluster of one
/// level gains one). Three levels whose level 1 has a capacity C (an NVLink domain): up to C nodes
/// share one level-1 group; more are dealt into equal groups of the largest divisor of `nodes` not
/// above C, which must be at least C / 2 (64 trays: 4 domains of 16). Throws InputError naming what
/// does not fit.
Cluster withNodes(Cluster cluster, int nodes);

} // namespace shardscope
