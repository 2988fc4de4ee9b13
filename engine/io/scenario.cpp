#include "engine/io/scenario.h"

#include "engine/io/cluster_file.h"
#include "engine/io/json_fields.h"
#include "engine/io/plan_file.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

#include <algorithm>

namespace shardscope {

ModelWithPlan loadPlanWithModel(const ModelSource& model, const std::string& planPath) {
    // The plan's settings decide the micro-batch count, so read them before building the model.
    const auto doc = JsonFields(planPath).parse(readTextFile(planPath));
    int micro = 1;
    if (doc.is_object() && doc.contains("settings") && doc["settings"].is_object() &&
        doc["settings"].contains("microbatches") && doc["settings"]["microbatches"].is_number_integer())
        micro = std::max(1, doc["settings"]["microbatches"].get<int>());
    ModelWithPlan out{std::make_shared<const Graph>(model.build(micro)), Plan{}};
    out.plan = parsePlanDocument(doc, planPath, *out.graph);
    return out;
}

Scenario loadScenario(const ScenarioRequest& request) {
    ModelSource source = readModelSource(request.model);
    Cluster cluster = loadCluster(request.cluster, request.nodes);
    std::shared_ptr<const Graph> graph;
    Plan plan;
    const bool planFile = !isBaselineSpec(request.strategy);
    if (planFile) {
        ModelWithPlan loaded = loadPlanWithModel(source, request.strategy);
        const int micro = loaded.plan.settings.microbatches;
        if (request.microbatches && *request.microbatches != micro)
            throw InputError("--microbatches " + std::to_string(*request.microbatches) + " contradicts " +
                             request.strategy + " (microbatches " + std::to_string(micro) + ")");
        graph = std::move(loaded.graph);
        plan = std::move(loaded.plan);
        if (!request.mesh.empty() && !(Mesh::parse(request.mesh) == plan.mesh))
            throw InputError("--mesh " + request.mesh + " contradicts " + request.strategy + " (mesh " +
                             plan.mesh.toString() + ")");
        if (request.recompute && *request.recompute != plan.settings.recompute)
            throw InputError("--recompute contradicts the settings of " + request.strategy);
        if (request.attention && *request.attention != plan.settings.attention)
            throw InputError("--attention contradicts the settings of " + request.strategy);
        if (request.precision && *request.precision != plan.settings.precision)
            throw InputError("--precision " + std::string(precisionName(*request.precision)) + " contradicts " +
                             request.strategy + " (precision " + std::string(precisionName(plan.settings.precision)) +
                             ")");
        if (request.optimizer && *request.optimizer != plan.settings.optimizer)
            throw InputError("--optimizer contradicts the settings of " + request.strategy);
        if (request.zeroStage && *request.zeroStage != plan.settings.zeroStage)
            throw InputError("--zero " + std::to_string(*request.zeroStage) + " contradicts " + request.strategy +
                             " (zero_stage " + std::to_string(plan.settings.zeroStage) + ")");
        if ((request.schedule && *request.schedule != plan.settings.schedule) ||
            (request.virtualStages && *request.virtualStages != plan.settings.virtualStages) ||
            (!request.stages.empty() && request.stages != plan.pipeline.rangesText()))
            throw InputError("--schedule, --virtual-stages and --stages contradict the pipeline of " + request.strategy);
    } else {
        StepSettings settings;
        settings.microbatches = request.microbatches.value_or(1);
        settings.recompute = request.recompute.value_or(Recompute::None);
        settings.optimizer = request.optimizer.value_or(OptimizerKind::Adam);
        settings.attention = request.attention.value_or(AttentionKernel::Fused);
        settings.precision = request.precision.value_or(Precision::BF16);
        settings.virtualStages = request.virtualStages.value_or(1);
        settings.schedule = request.schedule.value_or(settings.virtualStages > 1 ? Schedule::Interleaved
                                                                               : Schedule::OneFOneB);
        graph = std::make_shared<const Graph>(source.build(settings.microbatches));
        const Mesh mesh = request.mesh.empty() ? Mesh{{MeshAxis::of(AxisRole::Data, cluster.deviceCount())}}
                                               : Mesh::parse(request.mesh);
        mesh.verify(cluster.deviceCount(), cluster.name);
        plan = baselinePlan(*graph, mesh, request.strategy, settings);
        if (!request.stages.empty()) {
            if (mesh.pipelineStages() <= 1)
                throw InputError("--stages " + request.stages.substr(0, 80) + ": the mesh " + mesh.toString() +
                                 " has no pipe axis");
            const auto blocks = findLayers(*graph);
            plan.pipeline = makePipelineLayout(*graph, mesh.pipelineStages(), settings.virtualStages,
                                                 parseChunkRanges(request.stages, blocks ? blocks->count() : 0));
        }
        if (request.zeroStage && *request.zeroStage != plan.settings.zeroStage) {
            if (plan.settings.zeroStage != 0)
                throw InputError("--zero " + std::to_string(*request.zeroStage) + " contradicts --strategy " +
                                 request.strategy);
            plan.settings.zeroStage = *request.zeroStage;
            plan.settings.zeroAxes =
                *request.zeroStage > 0 ? (mesh.dataParallelAxes() ? mesh.dataParallelAxes() : axisBit(AxisId(0))) : 0;
        }
    }
    // Overlap and the loss kernel are how the runtime runs the plan, not part of it: the command line's
    // choice wins.
    plan.settings.overlap = request.overlap.value_or(plan.settings.overlap);
    plan.settings.tpOverlap = request.tpOverlap.value_or(plan.settings.tpOverlap);
    plan.settings.loss = request.loss.value_or(plan.settings.loss);
    plan.settings.bucketBytes = request.bucketBytes.value_or(plan.settings.bucketBytes);
    plan.mesh.verify(cluster.deviceCount(), cluster.name);
    if (const std::string e = precisionSupportError(cluster.device, plan.settings.precision); !e.empty())
        throw InputError(e + " (cluster " + cluster.name + ")");
    if (auto e = plan.verify(*graph); !e.empty())
        throw InputError(e);
    return Scenario{std::move(source), std::move(graph), std::make_shared<const Cluster>(std::move(cluster)),
                    std::move(plan)};
}

} // namespace shardscope
