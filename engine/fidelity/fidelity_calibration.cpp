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
