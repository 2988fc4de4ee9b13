#include "engine/cost/cost_terms.h"

#include "engine/util/enum_names.h"

#include <algorithm>

namespace shardscope {

namespace {
constexpr EnumNames<Phase, 3> kPhases{{{{Phase::Forward, "forward"}, {Phase::Backward, "backward"}, {Phase::Step, "step"}}}};
constexpr EnumNames<CommPurpose, 6> kPurposes{{{{CommPurpose::Resharding, "resharding"},
                                                {CommPurpose::Statistics, "statistics"},
                                                {CommPurpose::Halo, "halo"},
                                                {CommPurpose::GradientSync, "gradient-sync"},
                                                {CommPurpose::ParameterGather, "parameter-gather"},
                                                {CommPurpose::StageTransfer, "stage-transfer"}}}};
} // namespace

std::string_view phaseName(Phase p) { return kPhases.name(p); }

std::string_view purposeName(CommPurpose p) { return kPurposes.name(p); }

double OpCost::commTime() const {
    double t = 0;
    for (const CollectiveCost& c : collectives)
        t += c.totalTime();
    return t;
}

double OpCost::exposedCommTime() const {
    double t = 0;
    for (const CollectiveCost& c : collectives)
        t += c.exposedTime();
    return t;
}

std::vector<Edge> graphEdges(const Graph& graph) {
    std::vector<Edge> edges;
    for (OpId o : graph.topoOrder()) {
        const Op& op = graph.op(o);
        for (std::size_t k = 0; k < op.inputs.size(); ++k) {
            const TensorId t = op.inputs[k];
            const Tensor& tensor = graph.tensor(t);
            if (tensor.producer.valid()) {
                const Op& producer = graph.op(tensor.producer);
                const auto slot = static_cast<std::size_t>(
                    std::find(producer.outputs.begin(), producer.outputs.end(), t) - producer.outputs.begin());
                edges.push_back(Edge{tensor.producer, o, t, slot, k, false});
            } else if (tensor.role == TensorRole::Parameter) {
                // A parameter shared by two ops (tied embeddings): an edge from the op that owns it.
                const OpId owner = graph.parameterOwner(t);
                if (owner == o)
                    continue;
                const Op& ownerOp = graph.op(owner);
                const auto slot = static_cast<std::size_t>(
                    std::find(ownerOp.inputs.begin(), ownerOp.inputs.end(), t) - ownerOp.inputs.begin());
                edges.push_back(Edge{owner, o, t, slot, k, true});
            }
        }
    }
    return edges;
}

double EdgeCost::time() const {
    double t = 0;
    for (const CollectiveCost& c : collectives)
        t += c.exposedTime();
    return t;
}

} // namespace shardscope
