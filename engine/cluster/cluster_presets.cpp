#include "engine/cluster/cluster_presets.h"

#include "engine/util/error.h"

namespace shardscope {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// The figures that differ between presets: one GPU model, one node link, one inter-node link.
struct PresetFigures {
    const char* name;
    const char* device;
    int perNode;                ///< GPUs per host: 8 in a DGX or HGX, 4 in an NVL72 compute tray
    int domainNodes;            ///< hosts per NVLink domain beyond the host (18 trays in an NVL72); 1: none
    double bf16, fp32, fp8, fp4; ///< dense FLOP/s (fp8, fp4 0: no such tensor cores)
    bool mx;                    ///< block-scaled MX formats in the tensor cores (Blackwell)
    double memoryGiB, hbm;      ///< capacity, bytes/s
    double gemmEff, attnEff;    ///< achieved fraction of peak: GEMMs, the fused attention kernel
    double attnDropoutEff;      ///< the fused attention kernel that drops out probabilities
    double fp8Eff;              ///< achieved fraction of the FP8 peak by FP8 GEMMs
    double nodeBw, nodeEff;     ///< per GPU per direction inside a node; achieved fraction
    double netBw, netEff;       ///< per GPU per direction between nodes; achieved fraction
    double nodeLat, netLat;     ///< per ring step
    double baseLat;             ///< per collective
};

// DGX A100: A100-SXM4-80GB, 312 TFLOP/s dense bf16/fp16, 19.5 TFLOP/s fp32, 2.0 TB/s HBM2e;
// NVLink 3: 300 GB/s per GPU per direction; 8 x HDR 200 Gb/s InfiniBand per node = 25 GB/s per GPU.
// DGX H100: H100-SXM5-80GB, 989 TFLOP/s dense bf16, 67 TFLOP/s fp32, 1979 TFLOP/s fp8, 3.35 TB/s HBM3;
// NVLink 4: 450 GB/s per GPU per direction; 8 x NDR 400 Gb/s per node = 50 GB/s per GPU.
// DGX H200: H200-SXM-141GB, the H100's compute; 141 GB HBM3e (nvidia-smi: 143,771 MiB) at 4.8 TB/s; the
// H100's NVLink 4 and 8 x NDR 400 Gb/s (NVIDIA H200 Tensor Core GPU datasheet).
// DGX B200: B200 at 1000 W, 2.25 PFLOP/s dense bf16, 4.5 fp8 and mxfp8, 9 fp4; 180 GB HBM3e (DGX B200:
// 1,440 GB for 8) at 8 TB/s; NVLink 5: 900 GB/s per GPU per direction; 8 x ConnectX-7 400 Gb/s per node
// (NVIDIA DGX B200 datasheet; per-GPU figures as tabulated at glennklockwood.com/garden/processors/B200).
// FP32 (not tensor) 75 TFLOP/s (HGX B200: 600 for 8).
// GB200 NVL72 and GB300 NVL72: 72 GPUs in 18 compute trays of 4 (2 Grace-Blackwell superchips per tray),
// every GPU on the rack's NVLink 5 switches at 900 GB/s per direction (NVIDIA GB200 NVL72 and GB300
// NVL72 specifications: per rack 360 PFLOP/s bf16, 720 fp8, 1,440 (GB200) or 1,080 dense (GB300) fp4, all
// "with sparsity" halved here except GB300's dense fp4; 13.4 TB and 20.7 TB of HBM3e, i.e. 186 GB and
// 288 GB per GPU at 8 TB/s; fp32 5,760 TFLOP/s per rack). Scale-out: one ConnectX-7 400 Gb/s NIC per
// GPU on GB200, one ConnectX-8 800 Gb/s on GB300.
// MI300X: 1,307.4 TFLOP/s dense bf16, 2,614.9 fp8, 163.4 fp32, 192 GB HBM3 at 5.3 TB/s (AMD Instinct
// MI300X datasheet); Infinity Fabric joins the 8 GPUs of a node point to point, 7 links of 64 GB/s per
// direction per GPU (448 GB/s); 8 x 400 Gb/s NICs per node (50 GB/s per GPU). A level has one bandwidth
// per device, so a group of 2 or 4 MI300X is priced as if it could use all 7 links; it can use 1 or 3.
// PCIe workstation: 8 x A100-PCIe-40GB on PCIe 4.0 x16 (32 GB/s per direction, about 25 GB/s achieved)
// without NVLink; nodes joined by 100 Gb/s Ethernet shared by the 8 GPUs (1.5625 GB/s per GPU).
//
// Efficiencies, NCCL's large-message bus bandwidth over the spec:
//   A100 NVLink 0.775: all_reduce_perf on one 8 x A100 node, 232.54 GB/s (NVIDIA/nccl-tests#175).
//   H100 NVLink 0.817: all-reduce on one 8 x H200 node (NVLink 4) with NVLink SHARP off, 367.61 GB/s
//     (stas00/ml-engineering network/benchmarks/results/all-reduce-8xH200.md); NVLS reaches 482.
//   B200 NVLink 0.922: all_reduce_perf on one 8 x B200 node, 830 GB/s (NVIDIA/nccl#1807).
//   NVL72 NVLink 0.901: all_reduce_perf over 8 GB200 on 2 trays through the rack's switches (multi-node
//     NVLink), 811 GB/s (lixueduan.com, "GB200 MNNVL nccl-test", 2025).
//   MI300X Infinity Fabric 0.75: about 48 of 64 GB/s per link reached by RCCL (AMD ROCm blog,
//     "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X", 2025-03-02).
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
// it: GEMMs 0.6517 of peak, FlashAttention 0.4997, memory-bound kernels at the full 2.0 TB/s (the fit
// leaves them there). The H100 carries the A100's fractions until published H100 runs without
// pipelining join the table; the PCIe workstation the A100's; H200, Blackwell and MI300X the H100's.
// FP8 GEMM efficiencies: each the fit of its system's Megatron-Bridge FP8 rows (25.11, current scaling)
// from the device default 0.6 (fidelity_calibration.h, fp8Fits; `bench --fidelity` prints them):
// DGX-H100 Llama 3 8B and 70B 0.5635 (the H200, the same chip, shares it), DGX-B200 8B 0.4528, GB200
// 8B 0.4081, GB300 8B 0.5427; MI300X (no published run here) its BF16 fraction.
constexpr PresetFigures kPresets[] = {
    {"dgx-a100", "A100-SXM4-80GB", 8, 1, 312e12, 19.5e12, 0, 0, false, 80, 2.0e12, 0.6517, 0.4997, 0.4997, 0.6517, 300e9, 0.775,
     25e9, 0.96, 1.75e-6, 2.32e-6, 15.26e-6},
    {"dgx-h100", "H100-SXM5-80GB", 8, 1, 989e12, 67e12, 1979e12, 0, false, 80, 3.35e12, 0.7162, 0.5, 0.1353, 0.5549, 450e9, 0.817,
     50e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"dgx-h200", "H200-SXM-141GB", 8, 1, 989e12, 67e12, 1979e12, 0, false, 141, 4.8e12, 0.7162, 0.5, 0.1353, 0.5549, 450e9, 0.817,
     50e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"dgx-b200", "B200-SXM-180GB", 8, 1, 2250e12, 75e12, 4500e12, 9000e12, true, 180, 8.0e12, 0.6517, 0.4997, 0.4997, 0.4528, 900e9,
     0.922, 50e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"gb200-nvl72", "B200-GB200-186GB", 4, 18, 2500e12, 80e12, 5000e12, 10000e12, true, 186, 8.0e12, 0.6517, 0.4997, 0.4997, 0.4081,
     900e9, 0.901, 50e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"gb300-nvl72", "B300-GB300-288GB", 4, 18, 2500e12, 80e12, 5000e12, 15000e12, true, 288, 8.0e12, 0.6517, 0.4997, 0.4997, 0.5427,
     900e9, 0.901, 100e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"mi300x", "MI300X-192GB", 8, 1, 1307.4e12, 163.4e12, 2614.9e12, 0, false, 192, 5.3e12, 0.6517, 0.4997, 0.4997, 0.6517, 448e9,
     0.75, 50e9, 0.94, 1.75e-6, 2.32e-6, 15.26e-6},
    {"pcie-8x", "A100-PCIE-40GB", 8, 1, 312e12, 19.5e12, 0, 0, false, 40, 1.555e12, 0.6517, 0.4997, 0.4997, 0.6517, 25e9, 1.0,
     1.5625e9, 1.0, 10e-6, 20e-6, 15.26e-6},
};

Cluster makeCluster(const PresetFigures& f, int nodes) {
    Cluster c;
    c.name = f.name;
    c.device.name = f.device;
    c.device.peakFlops = {{DType::BF16, f.bf16}, {DType::FP16, f.bf16}, {DType::FP32, f.fp32}};
    if (f.fp8 > 0)
        c.device.peakFlops[DType::FP8] = f.fp8;
    c.device.fp4Flops = f.fp4;
    c.device.mxScaling = f.mx;
    // Blackwell's tensor cores (the MX ones here) also read FP8 in any layout.
    c.device.fp8AnyLayout = f.mx;
    c.device.memoryBytes = f.memoryGiB * kGiB;
    c.device.memoryBandwidth = f.hbm;
    c.device.efficiency = f.gemmEff;
    c.device.fp8Efficiency = f.fp8Eff;
    c.device.attentionEfficiency = f.attnEff;
    c.device.attentionDropoutEfficiency = f.attnDropoutEff;
    if (f.domainNodes > 1) {
        // The NVLink switches join every GPU of the rack at the same bandwidth, tray or not.
        c.levels = {{"tray", f.perNode, f.nodeBw, f.nodeLat, f.nodeEff, f.baseLat},
                    {"nvlink", 1, f.nodeBw, f.nodeLat, f.nodeEff, f.baseLat, f.domainNodes},
                    {"cluster", 1, f.netBw, f.netLat, f.netEff, f.baseLat}};
        return withNodes(std::move(c), nodes);
    }
    c.levels = {{"node", f.perNode, f.nodeBw, f.nodeLat, f.nodeEff, f.baseLat},
                {"cluster", nodes, f.netBw, f.netLat, f.netEff, f.baseLat}};
    return c;
}

} // namespace

std::vector<ClusterPresetInfo> clusterPresets() {
    return {
        {"dgx-a100", "8 x A100-80GB per node, 312 TFLOP/s bf16, 2.0 TB/s HBM, NVLink 300 GB/s (x 0.775 achieved), IB 25 GB/s (x 0.96) per GPU"},
        {"dgx-h100", "8 x H100-80GB per node, 989 TFLOP/s bf16, 3.35 TB/s HBM, NVLink 450 GB/s (x 0.817 achieved), IB 50 GB/s (x 0.94) per GPU"},
        {"dgx-h200", "8 x H200-141GB per node, 989 TFLOP/s bf16 (1979 fp8), 4.8 TB/s HBM3e, NVLink 450 GB/s (x 0.817), IB 50 GB/s (x 0.94) per GPU"},
        {"dgx-b200", "8 x B200-180GB per node, 2250 TFLOP/s bf16 (4500 fp8/mxfp8, 9000 fp4), 8 TB/s HBM3e, NVLink 900 GB/s (x 0.922), IB 50 GB/s (x 0.94) per GPU"},
        {"gb200-nvl72", "4 x B200-186GB per tray (--nodes counts trays), 18 trays per NVLink domain; 2500 TFLOP/s bf16 (5000 fp8/mxfp8, 10000 fp4), 8 TB/s HBM3e, NVLink 900 GB/s (x 0.901) across the rack, IB 50 GB/s (x 0.94) per GPU between racks"},
        {"gb300-nvl72", "4 x B300-288GB per tray (--nodes counts trays), 18 trays per NVLink domain; 2500 TFLOP/s bf16 (5000 fp8/mxfp8, 15000 fp4), 8 TB/s HBM3e, NVLink 900 GB/s (x 0.901) across the rack, IB 100 GB/s (x 0.94) per GPU between racks"},
        {"mi300x", "8 x MI300X-192GB per node, 1307 TFLOP/s bf16 (2615 fp8), 5.3 TB/s HBM3, Infinity Fabric 7 x 64 GB/s (x 0.75), 50 GB/s (x 0.94) per GPU between nodes"},
        {"pcie-8x", "8 x A100-PCIe-40GB on PCIe 4.0 (25 GB/s), no NVLink; 100 Gb/s Ethernet between nodes"},
    };
}

Cluster clusterPreset(const std::string& name, int nodes) {
    if (nodes < 1)
        throw InputError("--nodes: must be at least 1, got " + std::to_string(nodes));
    for (const PresetFigures& f : kPresets)
        if (name == f.name) {
            Cluster c = makeCluster(f, nodes);
            c.checkDeviceCount("--nodes " + std::to_string(nodes));
            return c;
        }
    std::string known;
    for (const auto& p : clusterPresets())
        known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown cluster preset '" + name + "' (known: " + known + ")");
}

} // namespace shardscope
