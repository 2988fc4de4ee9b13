#include "engine/plans/plan.h"

namespace shardscope {

Plan Plan::replicated(std::size_t opCount, const Mesh& mesh) {
    Plan p;
    p.mesh = mesh;
    p.strategies.assign(opCount, OpStrategy::replicated(mesh.rank()));
    p.locked.assign(opCount, false);
    return p;
}

std::string Plan::verify(const Graph& graph) const {
    if (strategies.size() != graph.ops().size())
        return "plan has " + std::to_string(strategies.size()) + " strategies but the model has " +
               std::to_string(graph.ops().size()) + " ops";
    for (std::size_t o = 0; o < strategies.size(); ++o)
        if (auto e = verifyStrategy(graph.ops()[o], mesh, strategies[o]); !e.empty())
            return "op '" + graph.ops()[o].name + "': " + e;
    if (const auto pipe = mesh.pipeAxis()) {
        const int stages = mesh.size(*pipe);
        if (stages > 1 && (pipeline.stages != stages || pipeline.chunkOf.size() != graph.ops().size()))
            return "pipeline: the mesh has " + std::to_string(stages) + " stages but the plan cuts the model into " +
                   std::to_string(pipeline.stages);
    } else if (pipeline.active()) {
        return "pipeline: the plan has " + std::to_string(pipeline.stages) + " stages but the mesh " +
               mesh.toString() + " has no pipe axis";
    }
    if (pipeline.active() && pipeline.virtualStages != settings.virtualStages)
        return "pipeline: " + std::to_string(pipeline.virtualStages) + " virtual stages in the cut, " +
               std::to_string(settings.virtualStages) + " in the settings";
    if (settings.virtualStages < 1 || (settings.virtualStages > 1 && settings.schedule != Schedule::Interleaved))
        return "settings: virtual stages above 1 need the interleaved schedule";
    if (pipeline.active() && settings.schedule == Schedule::Interleaved && settings.microbatches % pipeline.stages != 0)
        return "settings: the interleaved schedule needs micro-batches (" + std::to_string(settings.microbatches) +
               ") a multiple of the stages (" + std::to_string(pipeline.stages) + ")";
    if (settings.microbatches < 1)
        return "settings: microbatches must be at least 1";
    if (settings.zeroStage < 0 || settings.zeroStage > 3)
        return "settings: zero stage must be 0, 1, 2 or 3";
    return {};
}

} // namespace shardscope
