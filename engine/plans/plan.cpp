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
    if (settings.microbatches < 1)
        return "settings: microbatches must be at least 1";
    if (settings.zeroStage < 0 || settings.zeroStage > 3)
        return "settings: zero stage must be 0, 1, 2 or 3";
    return {};
}

} // namespace shardscope
