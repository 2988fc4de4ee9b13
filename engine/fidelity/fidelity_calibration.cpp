#include "engine/fidelity/fidelity_calibration.h"

#include "engine/cluster/cluster_presets.h"
#include "engine/fidelity/published_runs.h"

#include <algorithm>

namespace shardscope {

namespace {

std::vector<MeasuredRun> inSeconds(const std::vector<MeasuredRun>& runs) {
    std::vector<MeasuredRun> out;
    for (const MeasuredRun& r : runs)
        out.push_back(asStepSeconds(r));
    return out;
}

/// The runs of `family` at positions `picked`, and the others.
std::pair<std::vector<MeasuredRun>, std::vector<MeasuredRun>> split(const std::vector<MeasuredRun>& family,
                                                                    const std::vector<std::size_t>& picked) {
    std::pair<std::vector<MeasuredRun>, std::vector<MeasuredRun>> out;
    for (std::size_t i = 0; i < family.size(); ++i)
        (std::find(picked.begin(), picked.end(), i) != picked.end() ? out.first : out.second).push_back(family[i]);
    return out;
}

CrossCheck check(std::string name, std::vector<MeasuredRun> fitted, std::vector<MeasuredRun> predicted) {
    CrossCheck c;
    c.name = std::move(name);
    c.fitted = std::move(fitted);
    c.predicted = std::move(predicted);
    c.fit = calibrate(withDefaultEfficiencies(clusterPreset("dgx-a100", 1)), c.fitted, {"device"});
    for (const MeasuredRun& r : c.predicted)
        c.predictions.push_back(predictRun(r, c.fit.cluster).stepTime);
    return c;
}

} // namespace

Cluster withDefaultEfficiencies(Cluster c) {
    const DeviceSpec defaults;
    c.device.efficiency = defaults.efficiency;
    c.device.attentionEfficiency = defaults.attentionEfficiency;
    c.device.attentionDropoutEfficiency = defaults.attentionDropoutEfficiency;
    c.device.memoryEfficiency = defaults.memoryEfficiency;
    return c;
}

Calibration presetFit() {
    // The runs without pipelining: the pipelined family stays out, to test the preset on.
    std::vector<MeasuredRun> runs = inSeconds(megatronFamily());
    for (const MeasuredRun& r : inSeconds(torchtitanFamily()))
        runs.push_back(r);
    return calibrate(withDefaultEfficiencies(clusterPreset("dgx-a100", 1)), runs, {"device"});
}

SystemFit h100Fit() {
    SystemFit f;
    f.preset = "dgx-h100";
    for (const MeasuredRun& r : inSeconds(megatronH100Family()))
        if (Mesh::parse(r.mesh).pipelineStages() == 1)
            f.fitted.push_back(r);
    f.fit = calibrate(withDefaultEfficiencies(clusterPreset(f.preset, 1)), f.fitted, {"device", "dropout"});
    return f;
}

std::vector<SystemFit> fp8Fits() {
    // Megatron-Bridge's rows (published_runs.cpp, megatronBridgeFamily): 0-1 DGX-H100 8B and 70B, 2 DGX-B200
    // 8B, 4 GB200 8B, 7 GB300 8B, all FP8 with current scaling.
    const std::vector<MeasuredRun> rows = inSeconds(megatronBridgeFamily());
    const std::vector<std::pair<std::string, std::vector<std::size_t>>> systems{
        {"dgx-h100", {0, 1}}, {"dgx-b200", {2}}, {"gb200-nvl72", {4}}, {"gb300-nvl72", {7}}};
    std::vector<SystemFit> out;
    for (const auto& [preset, picked] : systems) {
        SystemFit f;
        f.preset = preset;
        f.fitted = split(rows, picked).first;
        Cluster start = clusterPreset(preset, 1);
        start.device.fp8Efficiency = DeviceSpec{}.fp8Efficiency;
        f.fit = calibrate(start, f.fitted, {"fp8"});
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<CrossCheck> crossChecks() {
    const std::vector<MeasuredRun> megatron = inSeconds(megatronFamily());
    const std::vector<MeasuredRun> titan = inSeconds(torchtitanFamily());
    auto [megatronPair, megatronRest] = split(megatron, {0, 4});
    auto [titanPair, titanRest] = split(titan, {0, 2});
    std::vector<CrossCheck> out;
    out.push_back(check("fitted on Narayanan row 1 (TP 1) and Korthikanti 22B full recomputation (TP 8)",
                        std::move(megatronPair), std::move(megatronRest)));
    out.push_back(check("fitted on torchtitan Llama 3 70B and Llama 2 13B", std::move(titanPair), std::move(titanRest)));
    out.push_back(check("fitted on the six Megatron-LM runs (unfused attention)", megatron, titan));
    return out;
}

} // namespace shardscope
