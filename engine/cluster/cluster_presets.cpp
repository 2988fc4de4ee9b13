#include "engine/cluster/cluster_presets.h"

#include "engine/util/error.h"

namespace shardscope {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// The figures that differ between presets: one GPU model, one node link, one inter-node link.
struct PresetFigures {
    const char* name;
    const char* device;
    double bf16, fp32, fp8;     ///< dense FLOP/s
    double memoryGiB, hbm;      ///< capacity, bytes/s
    double gemmEff, attnEff;    ///< achieved fraction of peak: GEMMs, the fused attention kernel
    double nodeBw, nodeEff;     ///< per GPU per direction inside a node; achieved fraction
    double netBw, netEff;       ///< per GPU per direction between nodes; achieved fraction
    double nodeLat, netLat;     ///< per ring step
    double baseLat;             ///< per collective
};

// DGX A100: A100-SXM4-80GB, 312 TFLOP/s dense bf16/fp16, 19.5 TFLOP/s fp32, 2.0 TB/s HBM2e;
// NVLink 3: 300 GB/s per GPU per direction; 8 x HDR 200 Gb/s InfiniBand per node = 25 GB/s per GPU.
// DGX H100: H100-SXM5-80GB, 989 TFLOP/s dense bf16, 67 TFLOP/s fp32, 1979 TFLOP/s fp8, 3.35 TB/s HBM3;
// NVLink 4: 450 GB/s per GPU per direction; 8 x NDR 400 Gb/s per node = 50 GB/s per GPU.
// PCIe workstation: 8 x A100-PCIe-40GB on PCIe 4.0 x16 (32 GB/s per direction, about 25 GB/s achieved)
// without NVLink; nodes joined by 100 Gb/s Ethernet shared by the 8 GPUs (1.5625 GB/s per GPU).
//
// Efficiencies, NCCL's large-message bus bandwidth over the spec:
//   A100 NVLink 0.775: all_reduce_perf on one 8 x A100 node, 232.54 GB/s (NVIDIA/nccl-tests#175).
//   H100 NVLink 0.817: all-reduce on one 8 x H200 node (NVLink 4) with NVLink SHARP off, 367.61 GB/s
//     (stas00/ml-engineering network/benchmarks/results/all-reduce-8xH200.md); NVLS reaches 482.
//   HDR 0.96 and NDR 0.94 per NIC: 24 of 25 GB/s (NVIDIA's sjeaugey, NVIDIA/nccl#412) and 46-48 of
//     50 GB/s (NVIDIA's AddyLaddy, NVIDIA/nccl-tests#290).
// Latencies, solved from three small all-reduces (8 bytes to 32 KiB, bandwidth negligible):
//   2 A100 on 2 nodes 19.9 us (NVIDIA/nccl-tests#150) = base + 2 net     (tree and ring alike)
//   8 H200 on 1 node 39.8 us (the ml-engineering sweep above) = base + 14 node
//   256 A100 on 32 nodes 63.0 us (NVIDIA/nccl#652) = base + 2 (7 node + 5 net)   (tree)
//   => net 2.32 us, base 15.26 us, node 1.75 us per step. The PCIe figures are not from measurements.
//
// Compute efficiencies: the A100's are the fit of every published A100 run (engine/fidelity: Narayanan
// 2021 Table 1 rows 1-4, Korthikanti 2022's 22B, torchtitan's Llama 2/3 on 64 A100s) from the
// device defaults, `shardscope-cli bench --fidelity` prints it and tst_fidelity holds the preset to
// it: GEMMs 0.6483 of peak, FlashAttention 0.5207, memory-bound kernels at the full 2.0 TB/s (the fit
// leaves them there). The H100 carries the A100's fractions until published H100 runs without
// pipelining join the table; the PCIe workstation the A100's.
constexpr PresetFigures kPresets[] = {
    {"dgx-a100", "A100-SXM4-80GB", 312e12, 19.5e12, 312e12, 80, 2.0e12, 0.6483, 0.5207, 300e9, 0.775, 25e9, 0.96,
     1.75e-6, 2.32e-6, 15.26e-6},
    {"dgx-h100", "H100-SXM5-80GB", 989e12, 67e12, 1979e12, 80, 3.35e12, 0.6483, 0.5207, 450e9, 0.817, 50e9, 0.94,
     1.75e-6, 2.32e-6, 15.26e-6},
    {"pcie-8x", "A100-PCIE-40GB", 312e12, 19.5e12, 312e12, 40, 1.555e12, 0.6483, 0.5207, 25e9, 1.0, 1.5625e9, 1.0,
     10e-6, 20e-6, 15.26e-6},
};

Cluster makeCluster(const PresetFigures& f, int nodes) {
    Cluster c;
    c.name = f.name;
    c.device.name = f.device;
    c.device.peakFlops = {{DType::BF16, f.bf16}, {DType::FP16, f.bf16}, {DType::FP32, f.fp32}, {DType::FP8, f.fp8}};
    c.device.memoryBytes = f.memoryGiB * kGiB;
    c.device.memoryBandwidth = f.hbm;
    c.device.efficiency = f.gemmEff;
    c.device.attentionEfficiency = f.attnEff;
    c.levels = {{"node", 8, f.nodeBw, f.nodeLat, f.nodeEff, f.baseLat},
                {"cluster", nodes, f.netBw, f.netLat, f.netEff, f.baseLat}};
    return c;
}

} // namespace

std::vector<ClusterPresetInfo> clusterPresets() {
    return {
        {"dgx-a100", "8 x A100-80GB per node, 312 TFLOP/s bf16, 2.0 TB/s HBM, NVLink 300 GB/s (x 0.775 achieved), IB 25 GB/s (x 0.96) per GPU"},
        {"dgx-h100", "8 x H100-80GB per node, 989 TFLOP/s bf16, 3.35 TB/s HBM, NVLink 450 GB/s (x 0.817 achieved), IB 50 GB/s (x 0.94) per GPU"},
        {"pcie-8x", "8 x A100-PCIe-40GB on PCIe 4.0 (25 GB/s), no NVLink; 100 Gb/s Ethernet between nodes"},
    };
}

Cluster clusterPreset(const std::string& name, int nodes) {
    if (nodes < 1)
        throw InputError("--nodes: must be at least 1, got " + std::to_string(nodes));
    for (const PresetFigures& f : kPresets)
        if (name == f.name) {
            const Cluster c = makeCluster(f, nodes);
            c.checkDeviceCount("--nodes " + std::to_string(nodes));
            return c;
        }
    std::string known;
    for (const auto& p : clusterPresets())
        known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown cluster preset '" + name + "' (known: " + known + ")");
}

} // namespace shardscope
