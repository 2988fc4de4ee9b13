#include "engine/search/pipeline_candidates.h"

namespace shardscope {

std::vector<Mesh> pipelinedMeshes(int devices, int perNode, int blocks) {
    std::vector<Mesh> meshes;
    if (perNode < 1 || devices % perNode != 0)
        return meshes;
    const int nodes = devices / perNode;
    for (int P = 2; P <= blocks && P <= nodes; P *= 2) {
        if (nodes % P != 0)
            continue;
        const int stage = devices / P;
        meshes.push_back(Mesh{{MeshAxis::of(AxisRole::Pipe, P), MeshAxis::of(AxisRole::Data, stage)}});
        for (int m = 2; m <= perNode; m *= 2)
            if (perNode % m == 0)
                meshes.push_back(Mesh{{MeshAxis::of(AxisRole::Pipe, P), MeshAxis::of(AxisRole::Data, stage / m),
                                       MeshAxis::of(AxisRole::Model, m)}});
    }
    return meshes;
}

std::vector<ScheduleChoice> scheduleChoices(const Mesh& mesh, const StepSettings& fixed, bool open, int blocks,
                                            bool every) {
    const int P = mesh.pipelineStages();
    if (!open || P < 2)
        return {ScheduleChoice{fixed.schedule, fixed.virtualStages}};
    std::vector<ScheduleChoice> choices{{Schedule::OneFOneB, 1}};
    for (int V = 4; V >= 2; --V)
        if (blocks % (P * V) == 0) {
            choices.push_back({Schedule::Interleaved, V});
            if (!every)
                break;
        }
    return choices;
}

std::string scheduleLabel(const StepSettings& settings) {
    std::string label(scheduleName(settings.schedule));
    if (settings.schedule == Schedule::Interleaved)
        label += " x " + std::to_string(settings.virtualStages);
    return label;
}

} // namespace shardscope
