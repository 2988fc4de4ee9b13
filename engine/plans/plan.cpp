#include "engine/plans/plan.h"

#include <algorithm>

namespace shardscope {

const Provenance& OpChoice::whyOn(std::size_t axis) const {
    static const Provenance origin;
    return axis < why.size() ? why[axis] : origin;
}

bool OpChoice::undecided() const {
    return !why.empty() &&
           std::all_of(why.begin(), why.end(), [](const Provenance& p) { return p.source == Provenance::Source::Undecided; });
}

void OpChoice::setWhy(Provenance::Source source, std::size_t rank) {
    why.assign(rank, Provenance{});
    for (Provenance& p : why)
        p.source = source;
}

std::vector<OpStrategy> Plan::strategies() const {
    std::vector<OpStrategy> out;
    out.reserve(ops.size());
    for (const OpChoice& c : ops)
        out.push_back(c.strategy);
    return out;
}

bool Plan::repeats(const RepeatedBlocks& blocks) const {
    for (std::size_t b = 2; b < blocks.blocks.size(); ++b)
        for (std::size_t q = 0; q < blocks.blocks[b].size(); ++q)
            if (!(strategy(blocks.blocks[b][q]) == strategy(blocks.blocks[1][q])))
                return false;
    return true;
}

std::string Plan::whyOf(const Graph& graph, OpId o, std::size_t axis) const {
    const OpChoice& c = ops[o.index()];
    return describeProvenance(c.whyOn(axis), graph, o, c.strategy.factorOfAxis[axis], mesh.axes[axis].name, tactics,
                              origin);
}

Plan Plan::replicated(std::size_t opCount, const Mesh& mesh) {
    Plan p;
    p.mesh = mesh;
    p.ops.assign(opCount, OpChoice{OpStrategy::replicated(mesh.rank()), false, {}});
    return p;
}

std::string Plan::verify(const Graph& graph) const {
    if (ops.size() != graph.ops().size())
        return "plan has " + std::to_string(ops.size()) + " strategies but the model has " +
               std::to_string(graph.ops().size()) + " ops";
    for (std::size_t o = 0; o < ops.size(); ++o) {
        if (auto e = verifyStrategy(graph.ops()[o], mesh, ops[o].strategy); !e.empty())
            return "op '" + graph.ops()[o].name + "': " + e;
        if (!ops[o].why.empty() && ops[o].why.size() != mesh.rank())
            return "op '" + graph.ops()[o].name + "': " + std::to_string(ops[o].why.size()) +
                   " reasons for a mesh of " + std::to_string(mesh.rank()) + " axes";
    }
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
