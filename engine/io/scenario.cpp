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
    ModelWithPlan out{model.build(micro), Plan{}};
    out.plan = parsePlanDocument(doc, planPath, out.graph);
    return out;
}

Scenario loadScenario(const ScenarioRequest& request) {
    Scenario s{readModelSource(request.model), Graph{}, loadCluster(request.cluster, request.nodes), Plan{}};
    const bool planFile = !isBaselineSpec(request.strategy);
    if (planFile) {
        ModelWithPlan loaded = loadPlanWithModel(s.source, request.strategy);
        const int micro = loaded.plan.settings.microbatches;
        if (request.microbatches && *request.microbatches != micro)
            throw InputError("--microbatches " + std::to_string(*request.microbatches) + " contradicts " +
                             request.strategy + " (microbatches " + std::to_string(micro) + ")");
        s.graph = std::move(loaded.graph);
        s.plan = std::move(loaded.plan);
        if (!request.mesh.empty() && !(Mesh::parse(request.mesh) == s.plan.mesh))
            throw InputError("--mesh " + request.mesh + " contradicts " + request.strategy + " (mesh " +
                             s.plan.mesh.toString() + ")");
        if (request.recompute && *request.recompute != s.plan.settings.recompute)
            throw InputError("--recompute contradicts the settings of " + request.strategy);
        if (request.attention && *request.attention != s.plan.settings.attention)
            throw InputError("--attention contradicts the settings of " + request.strategy);
        if (request.optimizer && *request.optimizer != s.plan.settings.optimizer)
            throw InputError("--optimizer contradicts the settings of " + request.strategy);
        if (request.zeroStage && *request.zeroStage != s.plan.settings.zeroStage)
            throw InputError("--zero " + std::to_string(*request.zeroStage) + " contradicts " + request.strategy +
                             " (zero_stage " + std::to_string(s.plan.settings.zeroStage) + ")");
        if ((request.schedule && *request.schedule != s.plan.settings.schedule) ||
            (request.virtualStages && *request.virtualStages != s.plan.settings.virtualStages) ||
            (!request.stages.empty() && request.stages != s.plan.pipeline.rangesText()))
            throw InputError("--schedule, --virtual-stages and --stages contradict the pipeline of " + request.strategy);
    } else {
        StepSettings settings;
        settings.microbatches = request.microbatches.value_or(1);
        settings.recompute = request.recompute.value_or(Recompute::None);
        settings.optimizer = request.optimizer.value_or(OptimizerKind::Adam);
        settings.attention = request.attention.value_or(AttentionKernel::Fused);
        settings.virtualStages = request.virtualStages.value_or(1);
        settings.schedule = request.schedule.value_or(settings.virtualStages > 1 ? Schedule::Interleaved
                                                                               : Schedule::OneFOneB);
        s.graph = s.source.build(settings.microbatches);
        const Mesh mesh = request.mesh.empty() ? Mesh{{MeshAxis::of(AxisRole::Data, s.cluster.deviceCount())}}
                                               : Mesh::parse(request.mesh);
        mesh.verify(s.cluster.deviceCount(), s.cluster.name);
        s.plan = baselinePlan(s.graph, mesh, request.strategy, settings);
        if (!request.stages.empty()) {
            if (mesh.pipelineStages() <= 1)
                throw InputError("--stages " + request.stages.substr(0, 80) + ": the mesh " + mesh.toString() +
                                 " has no pipe axis");
            const auto blocks = findRepeatedBlocks(s.graph);
            s.plan.pipeline = makePipelineLayout(s.graph, mesh.pipelineStages(), settings.virtualStages,
                                                 parseChunkRanges(request.stages, blocks ? blocks->count() : 0));
        }
        if (request.zeroStage && *request.zeroStage != s.plan.settings.zeroStage) {
            if (s.plan.settings.zeroStage != 0)
                throw InputError("--zero " + std::to_string(*request.zeroStage) + " contradicts --strategy " +
                                 request.strategy);
            s.plan.settings.zeroStage = *request.zeroStage;
            s.plan.settings.zeroAxes = *request.zeroStage > 0 ? axisBit(mesh.axisOf(AxisRole::Data).value_or(AxisId(0))) : 0;
        }
    }
    // Overlap is how the runtime runs the plan, not part of it: the command line's choice wins.
    s.plan.settings.overlap = request.overlap.value_or(s.plan.settings.overlap);
    s.plan.settings.tpOverlap = request.tpOverlap.value_or(s.plan.settings.tpOverlap);
    s.plan.settings.bucketBytes = request.bucketBytes.value_or(s.plan.settings.bucketBytes);
    s.plan.mesh.verify(s.cluster.deviceCount(), s.cluster.name);
    if (auto e = s.plan.verify(s.graph); !e.empty())
        throw InputError(e);
    return s;
}

} // namespace shardscope
