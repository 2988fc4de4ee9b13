#include "engine/fidelity/measured_run.h"

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/sim/simulator.h"
#include "engine/io/cluster_file.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

namespace shardscope {

namespace {

/// Narayanan et al. 2021, eq. 3: a GPT step's model FLOPs with full recomputation.
double gptStepFlops(const ModelParams& p, int batch) {
    const double B = batch, s = p.seq, l = p.layers, h = p.hidden, V = p.vocab;
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

/// Megatron-Core's count for a GPT with multi-head attention and a 4h GeLU MLP (num_floating_point_
/// operations in megatron/training/training.py): attention projections 2, scores and context s/h, MLP
/// 4, logits V/(2 l h), times 12 B s l h^2 (3 passes x 2 FLOPs per multiply-add x 2 matrices).
double megatronCoreStepFlops(const ModelParams& p, int batch) {
    if (p.kvHeadCount() != p.heads || p.ffnSize() != 4 * p.hidden)
        throw InputError("Megatron-Core's TFLOP/s are counted here for multi-head attention and a 4h MLP only");
    const double B = batch, s = p.seq, l = p.layers, h = p.hidden, V = p.vocab;
    return 12 * B * s * l * h * h * (2 + s / h + 4 + V / (2 * l * h));
}

/// Micro-batch counts to try: `fixed`, or every divisor of the per-replica batch, fewest first.
std::vector<int> microbatchCounts(int fixed, int perReplica) {
    if (fixed > 0)
        return {fixed};
    std::vector<int> counts;
    for (int m = 1; m <= perReplica; ++m)
        if (perReplica % m == 0)
            counts.push_back(m);
    return counts;
}

/// The built-in model's parameters for a metric defined on them; throws when the model is a file.
ModelParams builtInParams(const MeasuredRun& run) {
    const auto builder = resolveBuilder(ModelRequest{run.model, run.sets, run.batch});
    if (!builder)
        throw InputError(std::string(runMetricUnit(run.metric)) + " needs a built-in model");
    return builder->params;
}

/// Work of one step in the metric's unit times seconds: value x step time x GPUs.
double stepWork(const MeasuredRun& run) {
    const ModelParams p = builtInParams(run);
    switch (run.metric) {
    case RunMetric::GptTflopsPerGpu:
        return gptStepFlops(p, run.batch) / 1e12;
    case RunMetric::MegatronCoreTflopsPerGpu:
        return megatronCoreStepFlops(p, run.batch) / 1e12;
    default:
        return double(run.batch) * p.seq;
    }
}

} // namespace

const char* runMetricUnit(RunMetric metric) {
    switch (metric) {
    case RunMetric::StepSeconds:
        return "s";
    case RunMetric::GptTflopsPerGpu:
    case RunMetric::MegatronCoreTflopsPerGpu:
        return "TFLOP/s per GPU";
    case RunMetric::TokensPerGpuSecond:
        return "tokens/s per GPU";
    }
    return "";
}

MeasuredRun asStepSeconds(const MeasuredRun& run) {
    if (run.metric == RunMetric::StepSeconds)
        return run;
    try {
        const Cluster cluster = withNodes(loadCluster(run.cluster, std::nullopt), run.nodes);
        MeasuredRun out = run;
        out.measured = stepWork(run) / (run.measured * cluster.deviceCount());
        out.metric = RunMetric::StepSeconds;
        return out;
    } catch (const InputError& e) {
        throw InputError("run '" + run.name + "': " + e.what());
    }
}

RunPrediction predictRun(const MeasuredRun& run) {
    Cluster cluster;
    try {
        cluster = loadCluster(run.cluster, std::nullopt);
    } catch (const InputError& e) {
        throw InputError("run '" + run.name + "': " + e.what());
    }
    return predictRun(run, cluster);
}

RunPrediction predictRun(const MeasuredRun& run, const Cluster& base) {
    try {
        const ModelSource source = readModelSource(ModelRequest{run.model, run.sets, run.batch});
        const auto shared = std::make_shared<const Cluster>(withNodes(base, run.nodes));
        const Cluster& cluster = *shared;
        const Mesh mesh = Mesh::parse(run.mesh);
        const int replicas = mesh.dataParallelDegree();
        if (run.batch % replicas != 0)
            throw InputError("batch " + std::to_string(run.batch) + " does not divide over " +
                             std::to_string(replicas) + " data-parallel ranks");
        RunPrediction best;
        for (int m : microbatchCounts(run.microbatches, run.batch / replicas)) {
            const auto g = std::make_shared<const Graph>(source.build(m));
            StepSettings settings;
            settings.recompute = run.recompute;
            settings.attention = run.attention;
            settings.precision = run.precision;
            settings.loss = run.loss;
            settings.overlap = run.overlap;
            settings.tpOverlap = run.tpOverlap;
            settings.bucketBytes = run.bucketBytes;
            settings.schedule = run.schedule;
            settings.virtualStages = run.virtualStages;
            settings.microbatches = m;
            std::optional<PipelineLayout> layout;
            if (!run.chunkBlocks.empty() && mesh.pipelineStages() > 1)
                layout = makePipelineLayout(*g, mesh.pipelineStages(), run.virtualStages, run.chunkBlocks);
            const Plan plan = baselinePlan(*g, mesh, run.strategy, settings, nullptr, layout ? &*layout : nullptr);
            const CostModel model(g, shared, mesh, plan.settings);
            const auto e = evaluate(model, plan);
            // The run's step as the plan's figure: simulated (docs/DESIGN.md, Overlap).
            SimOptions options;
            options.overlap = plan.settings.overlap;
            options.timelines = false;
            const double step = simulate(model, plan, options)->stepTime;
            best = RunPrediction{step, step, e->peakMemory, cluster.device.memoryBytes, e->feasible, m};
            if (e->feasible)
                break;
        }
        if (run.metric != RunMetric::StepSeconds)
            best.value = stepWork(run) / (best.stepTime * cluster.deviceCount());
        return best;
    } catch (const InputError& e) {
        throw InputError("run '" + run.name + "': " + e.what());
    }
}

} // namespace shardscope
