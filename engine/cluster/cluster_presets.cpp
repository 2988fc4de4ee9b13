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
    double nodeBw, nodeLat;     ///< per GPU per direction inside a node
    double netBw, netLat;       ///< per GPU per direction between nodes
};

// DGX A100: A100-SXM4-80GB, 312 TFLOP/s dense bf16/fp16, 19.5 TFLOP/s fp32, 2.0 TB/s HBM2e;
// NVLink 3: 300 GB/s per GPU per direction; 8 x HDR 200 Gb/s InfiniBand per node = 25 GB/s per GPU.
// DGX H100: H100-SXM5-80GB, 989 TFLOP/s dense bf16, 67 TFLOP/s fp32, 1979 TFLOP/s fp8, 3.35 TB/s HBM3;
// NVLink 4: 450 GB/s per GPU per direction; 8 x NDR 400 Gb/s per node = 50 GB/s per GPU.
// PCIe workstation: 8 x A100-PCIe-40GB on PCIe 4.0 x16 (32 GB/s per direction, about 25 GB/s achieved)
// without NVLink; nodes joined by 100 Gb/s Ethernet shared by the 8 GPUs (1.5625 GB/s per GPU).
constexpr PresetFigures kPresets[] = {
    {"dgx-a100", "A100-SXM4-80GB", 312e12, 19.5e12, 312e12, 80, 2.0e12, 300e9, 2e-6, 25e9, 5e-6},
    {"dgx-h100", "H100-SXM5-80GB", 989e12, 67e12, 1979e12, 80, 3.35e12, 450e9, 2e-6, 50e9, 5e-6},
    {"pcie-8x", "A100-PCIE-40GB", 312e12, 19.5e12, 312e12, 40, 1.555e12, 25e9, 10e-6, 1.5625e9, 20e-6},
};

Cluster makeCluster(const PresetFigures& f, int nodes) {
    Cluster c;
    c.name = f.name;
    c.device.name = f.device;
    c.device.peakFlops = {{DType::BF16, f.bf16}, {DType::FP16, f.bf16}, {DType::FP32, f.fp32}, {DType::FP8, f.fp8}};
    c.device.memoryBytes = f.memoryGiB * kGiB;
    c.device.memoryBandwidth = f.hbm;
    c.levels = {{"node", 8, f.nodeBw, f.nodeLat}, {"cluster", nodes, f.netBw, f.netLat}};
    return c;
}

} // namespace

std::vector<ClusterPresetInfo> clusterPresets() {
    return {
        {"dgx-a100", "8 x A100-80GB per node, 312 TFLOP/s bf16, 2.0 TB/s HBM, NVLink 300 GB/s, IB 25 GB/s per GPU"},
        {"dgx-h100", "8 x H100-80GB per node, 989 TFLOP/s bf16, 3.35 TB/s HBM, NVLink 450 GB/s, IB 50 GB/s per GPU"},
        {"pcie-8x", "8 x A100-PCIe-40GB on PCIe 4.0 (25 GB/s), no NVLink; 100 Gb/s Ethernet between nodes"},
    };
}

Cluster clusterPreset(const std::string& name, int nodes) {
    if (nodes < 1)
        throw InputError("--nodes: must be at least 1, got " + std::to_string(nodes));
    for (const PresetFigures& f : kPresets)
        if (name == f.name)
            return makeCluster(f, nodes);
    std::string known;
    for (const auto& p : clusterPresets())
        known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown cluster preset '" + name + "' (known: " + known + ")");
}

} // namespace shardscope
