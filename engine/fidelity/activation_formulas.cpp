#include "engine/fidelity/activation_formulas.h"

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"

namespace shardscope {

namespace {

constexpr double s = 2048, h = 4096, a = 32, t = 8; // Table 2's example, b = 1
constexpr double sbh = s * h;

struct Setting {
    std::string name;
    std::string strategy;
    Recompute recompute;
    std::string formula;
    double coefficient; ///< bytes per layer / sbh
};

/// Table 2 without dropout: eq. 1 loses the two hidden dropouts' masks (sbh each) and the attention
/// dropout's mask and output (as^2b + 2as^2b), leaving the softmax output's 2as^2b.
std::vector<Setting> withoutDropout() {
    return {{"no parallelism", "dp", Recompute::None, "sbh(32 + 2as/h)", 32 + 2 * a * s / h},
            {"TP", "megatron", Recompute::None, "sbh(8 + 24/t + 2as/(ht))", 8 + 24 / t + 2 * a * s / (h * t)},
            {"TP+SP", "megatron-sp", Recompute::None, "sbh(32/t + 2as/(ht))", 32 / t + 2 * a * s / (h * t)},
            {"TP+selective", "megatron", Recompute::Selective, "sbh(8 + 24/t)", 8 + 24 / t},
            {"TP+SP+selective", "megatron-sp", Recompute::Selective, "32sbh/t", 32 / t},
            {"full recomputation", "dp", Recompute::Full, "2sbh", 2},
            {"TP+SP+full", "megatron-sp", Recompute::Full, "2sbh/t", 2 / t}};
}

/// Table 2 as printed, with dropout.
std::vector<Setting> withDropout() {
    return {{"no parallelism", "dp", Recompute::None, "sbh(34 + 5as/h)", 34 + 5 * a * s / h},
            {"TP", "megatron", Recompute::None, "sbh(10 + 24/t + 5as/(ht))", 10 + 24 / t + 5 * a * s / (h * t)},
            {"TP+SP", "megatron-sp", Recompute::None, "sbh(34/t + 5as/(ht))", 34 / t + 5 * a * s / (h * t)},
            {"TP+selective", "megatron", Recompute::Selective, "sbh(10 + 24/t)", 10 + 24 / t},
            {"TP+SP+selective", "megatron-sp", Recompute::Selective, "34sbh/t", 34 / t},
            {"full recomputation", "dp", Recompute::Full, "2sbh", 2},
            {"TP+SP+full", "megatron-sp", Recompute::Full, "2sbh/t", 2 / t}};
}

} // namespace

double table2ActivationBytes(int layers, bool dropout, const std::string& strategy, Recompute recompute,
                             AttentionKernel attention) {
    const bool tensorParallel = strategy != "dp";
    const std::vector<std::string> sets{"layers=" + std::to_string(layers),
                                        "hidden=4096",
                                        "heads=32",
                                        "seq=2048",
                                        tensorParallel ? "batch=1" : "batch=8",
                                        std::string("dropout=") + (dropout ? "true" : "false")};
    const Graph g = loadModel(ModelRequest{"gpt", sets, std::nullopt}, 1);
    const Cluster c = clusterPreset("dgx-a100", 1);
    const Mesh mesh = Mesh::parse(tensorParallel ? "model=8" : "data=8");
    StepSettings settings;
    settings.recompute = recompute;
    settings.attention = attention;
    const Plan plan = baselinePlan(g, mesh, strategy, settings);
    const CostModel model(g, c, mesh, plan.settings);
    return evaluate(model, plan)->memory.activations;
}

std::vector<ActivationFormulaCheck> activationFormulaChecks() {
    std::vector<ActivationFormulaCheck> checks;
    for (bool dropout : {false, true})
        for (const Setting& k : dropout ? withDropout() : withoutDropout()) {
            const double perLayer = table2ActivationBytes(3, dropout, k.strategy, k.recompute) -
                                    table2ActivationBytes(2, dropout, k.strategy, k.recompute);
            checks.push_back({k.name + (dropout ? ", dropout" : ""), k.formula, perLayer, k.coefficient * sbh});
        }
    return checks;
}

} // namespace shardscope
