#pragma once
// What the cost model knows of a graph whatever the mesh: its edges, which tensors need gradients,
// the recomputation units, the attention-core ops, and (remembered on first use) the FP8 GEMMs of a
// precision and the activations kept under a recomputation setting. Built once per graph and shared
// by the cost models of every mesh and setting a search tries, so none of it is derived again per
// mesh.

#include "engine/cost/cost_terms.h"
#include "engine/cost/saved_activations.h"
#include "engine/cost/step_settings.h"
#include "engine/ir/graph.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace shardscope {

/// The mesh-independent analysis of one finalized graph. Thread-safe.
class GraphFacts {
public:
    /// Analyses `graph`, which it shares.
    explicit GraphFacts(std::shared_ptr<const Graph> graph);

    /// The graph analysed.
    const std::shared_ptr<const Graph>& graph() const { return graph_; }

    /// Every edge (producer output into consumer input) of the graph.
    const std::vector<Edge>& edges() const { return edges_; }
    /// Per tensor: true when its gradient is needed (it is a parameter or depends on one).
    const std::vector<bool>& needsGradient() const { return needsGrad_; }
    /// The recomputation units (the repeated blocks' ops, per unit).
    const RecomputeUnits& units() const { return units_; }
    /// Per op: an attention-core op read only by attention-core ops.
    const std::vector<bool>& insideCore() const { return insideCore_; }
    /// Per op: an attention-core op whose core (the attention-core ops joined by their tensors) drops
    /// out probabilities.
    const std::vector<bool>& dropoutCore() const { return dropoutCore_; }
    /// Per op: an attention-core op's head size (the smallest reduction of its core's contractions, QK^T's
    /// over the head); 0 for other ops.
    const std::vector<std::int64_t>& coreHeadDim() const { return coreHeadDim_; }
    /// Per op: whether it runs its GEMMs in FP8 under `precision` (fp8_gemms.h); empty under BF16.
    std::shared_ptr<const std::vector<bool>> fp8Gemms(Precision precision) const;
    /// The activations kept and recomputed under these settings (saved_activations.h).
    std::shared_ptr<const SavedActivations> saved(Recompute recompute, AttentionKernel attention,
                                                  Precision precision) const;

private:
    std::shared_ptr<const Graph> graph_;
    std::vector<Edge> edges_;
    std::vector<bool> needsGrad_;
    RecomputeUnits units_;
    std::vector<bool> insideCore_;
    std::vector<bool> dropoutCore_;
    std::vector<std::int64_t> coreHeadDim_;
    mutable std::mutex mutex_;
    mutable std::map<bool, std::shared_ptr<const std::vector<bool>>> fp8_;   ///< by "not BF16"
    mutable std::map<std::tuple<Recompute, AttentionKernel, Precision>, std::shared_ptr<const SavedActivations>> saved_;
};

} // namespace shardscope
