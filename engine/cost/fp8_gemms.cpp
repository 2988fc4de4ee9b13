#include "engine/cost/fp8_gemms.h"

namespace shardscope {

std::vector<bool> fp8Gemms(const Graph& graph, const RecomputeUnits& units) {
    std::vector<bool> out(graph.ops().size(), false);
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        const Op& op = graph.ops()[o];
        if (op.kind != OpKind::MatMul || op.attentionCore || units.unitOf[o] < 0)
            continue;
        for (TensorId t : op.inputs)
            if (graph.tensor(t).role == TensorRole::Parameter)
                out[o] = true;
    }
    return out;
}

} // namespace shardscope
