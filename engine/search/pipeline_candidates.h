#pragma once
// What the search tries for pipelining (docs/DESIGN.md, Pipelining): meshes with a pipe axis when it
// chooses the mesh, and the schedules of a mesh with one.

#include "engine/cluster/mesh.h"
#include "engine/cost/step_settings.h"

#include <string>
#include <vector>

namespace shardscope {

/// One schedule a pipelined mesh's search tries.
struct ScheduleChoice {
    Schedule schedule = Schedule::OneFOneB;
    int virtualStages = 1;

    bool operator==(const ScheduleChoice&) const = default;
};

/// The meshes with a pipe axis "choose the mesh" adds for `devices` devices, `perNode` per node and a
/// model of `blocks` repeated blocks: P stages (a power of two, 2 <= P <= blocks) of whole nodes, as
/// Megatron places pipeline stages across nodes, each stage one data axis or data x model with the
/// model axis inside a node. Example: 1024 devices, 8 per node, 96 blocks: pipe = 2 ... 64, each with
/// model = 1, 2, 4, 8.
std::vector<Mesh> pipelinedMeshes(int devices, int perNode, int blocks);

/// The schedules the search tries on `mesh` for a model of `blocks` repeated blocks: `fixed`'s when
/// not `open` or the mesh has no pipe axis; else 1F1B and interleaved with 4, 3 or 2 virtual stages
/// where the blocks deal evenly into P x V chunks: `every` such V (a mesh the user gave), else the
/// largest (meshes the search chooses: a smaller bubble outweighs the sends that V adds on the
/// models measured). GPipe is 1F1B's time with more memory and is not tried.
std::vector<ScheduleChoice> scheduleChoices(const Mesh& mesh, const StepSettings& fixed, bool open, int blocks,
                                            bool every);

/// "1f1b", "interleaved x 3": a schedule choice for reports.
std::string scheduleLabel(const StepSettings& settings);

} // namespace shardscope
