#include "engine/cluster/cluster_presets.h"

#include "engine/util/error.h"

namespace shardscope {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// DGX A100: A100-SXM4-80GB, 312 TFLOP/s dense bf16/fp16, 19.5 TFLOP/s fp32, 2.0 TB/s HBM2e;
// NVLink 3: 300 GB/s per GPU per direction; 8 x HDR 200 Gb/s InfiniBand per node = 25 GB/s per GPU.
Cluster dgxA100(int nodes) {
    Cluster c;
    c.name = "dgx-a100";
    c.device.name = "A100-SXM4-80GB";
    c.device.peakFlops = {{DType::BF16, 312e12}, {DType::FP16, 312e12}, {DType::FP32, 19.5e12}, {DType::FP8, 312e12}};
    c.device.memoryBytes = 80 * kGiB;
    c.device.memoryBandwidth = 2.0e12;
    c.levels = {{"node", 8, 300e9, 2e-6}, {"cluster", nodes, 25e9, 5e-6}};
    return c;
}

// DGX H100: H100-SXM5-80GB, 989 TFLOP/s dense bf16, 67 TFLOP/s fp32, 1979 TFLOP/s fp8, 3.35 TB/s HBM3;
// NVLink 4: 450 GB/s per GPU per direction; 8 x NDR 400 Gb/s per node = 50 GB/s per GPU.
Cluster dgxH100(int nodes) {
    Cluster c;
    c.name = "dgx-h100";
    c.device.name = "H100-SXM5-80GB";
    c.device.peakFlops = {{DType::BF16, 989e12}, {DType::FP16, 989e12}, {DType::FP32, 67e12}, {DType::FP8, 1979e12}};
    c.device.memoryBytes = 80 * kGiB;
    c.device.memoryBandwidth = 3.35e12;
    c.levels = {{"node", 8, 450e9, 2e-6}, {"cluster", nodes, 50e9, 5e-6}};
    return c;
}

// A workstation of 8 x A100-PCIe-40GB on PCIe 4.0 x16 (32 GB/s per direction, about 25 GB/s achieved)
// without NVLink; nodes joined by 100 Gb/s Ethernet shared by the 8 GPUs (1.5625 GB/s per GPU).
Cluster pcie8x(int nodes) {
    Cluster c;
    c.name = "pcie-8x";
    c.device.name = "A100-PCIE-40GB";
    c.device.peakFlops = {{DType::BF16, 312e12}, {DType::FP16, 312e12}, {DType::FP32, 19.5e12}, {DType::FP8, 312e12}};
    c.device.memoryBytes = 40 * kGiB;
    c.device.memoryBandwidth = 1.555e12;
    c.levels = {{"node", 8, 25e9, 10e-6}, {"cluster", nodes, 1.5625e9, 20e-6}};
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
    if (name == "dgx-a100")
        return dgxA100(nodes);
    if (name == "dgx-h100")
        return dgxH100(nodes);
    if (name == "pcie-8x")
        return pcie8x(nodes);
    std::string known;
    for (const auto& p : clusterPresets())
        known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown cluster preset '" + name + "' (known: " + known + ")");
}

} // namespace shardscope
