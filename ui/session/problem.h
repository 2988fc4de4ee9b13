#pragma once
// A loaded model and cluster: immutable once built, shared between the window and its workers.

#include "engine/cluster/cluster.h"
#include "engine/cost/cost_terms.h"
#include "engine/io/model_file.h"
#include "engine/ir/repeated_blocks.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

/// What was loaded and how to load it again (with another batch or micro-batch count).
struct Problem {
    std::shared_ptr<const Graph> graph;   ///< of `microbatches` micro-batches
    std::shared_ptr<const Cluster> cluster;
    ModelSource source;                   ///< the model as read: its request, and its builder for presets
                                          ///< and Hugging Face configs (nullopt for model files)
    std::string clusterSpec;              ///< preset name or file
    std::optional<int> nodes;
    int microbatches = 1;
    std::vector<Edge> edges;              ///< graphEdges(graph)
    std::optional<RepeatedBlocks> blocks; ///< the layers, if any (findLayers: what a pipeline cuts at)

    /// The global batch the graph was built for, or nullopt when the model file fixes it.
    std::optional<int> globalBatch() const {
        return source.builder ? std::optional<int>(source.builder->params.batch) : std::nullopt;
    }
};

/// A problem from an already built `graph` and `cluster`; `source`, `clusterSpec` and `nodes` say how
/// they were loaded.
std::shared_ptr<const Problem> makeProblem(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster,
                                           ModelSource source,
                                           const std::string& clusterSpec, std::optional<int> nodes, int microbatches);
/// Builds `source` for `microbatches` micro-batches on cluster `clusterSpec` scaled to `nodes`.
/// Throws InputError naming the problem.
std::shared_ptr<const Problem> loadProblem(const ModelSource& source, const std::string& clusterSpec,
                                           std::optional<int> nodes, int microbatches);
/// `base` rebuilt from its model source with global batch `batch` (if set) and `microbatches`.
/// Throws InputError naming the problem.
std::shared_ptr<const Problem> rebuiltProblem(const Problem& base, std::optional<int> batch, int microbatches);

} // namespace shardscope::ui
