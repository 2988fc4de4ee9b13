#pragma once
// The graphs of one model for different micro-batch counts: the search builds each count it tries
// once, with its repeated blocks, and shares it between meshes and threads.

#include "engine/cost/graph_facts.h"
#include "engine/io/model_file.h"
#include "engine/ir/graph.h"
#include "engine/ir/repeated_blocks.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <optional>

namespace shardscope {

/// How to build the graph of one micro-batch for a micro-batch count.
struct GraphFamily {
    int globalBatch = 0;                         ///< sequences (or images) per optimizer step
    std::function<Graph(int microbatches)> build; ///< throws InputError when the count does not divide
};

/// The family of `source`'s model: a preset's or Hugging Face config's builder, or an ONNX file
/// whose batch is bound (--set batch=B); nullopt for a model that fixes its own batch.
std::optional<GraphFamily> graphFamilyOf(const ModelSource& source);

/// One micro-batch count's graph, its repeated blocks, and the run of them the search folds.
struct GraphVariant {
    std::shared_ptr<const Graph> graph;
    std::optional<RepeatedBlocks> layers;        ///< every repeated block
    std::optional<RepeatedBlocks> cuts;          ///< the layers a pipeline cuts at (findLayers)
    std::optional<RepeatedBlocks> blocks;        ///< the run folded (folded_run.h); null when folding is off
    std::shared_ptr<const GraphFacts> facts;     ///< the graph's analysis, shared by every mesh's cost models

    /// The blocks to fold over, or null.
    const RepeatedBlocks* folded() const { return blocks ? &*blocks : nullptr; }
};

/// Builds and keeps the graph of each micro-batch count on first use. Thread-safe.
class GraphCache {
public:
    /// `given` is the graph for `givenMicrobatches`; `family` (optional) builds the others; `fold`
    /// chooses per graph the run of its repeated blocks to fold (nullopt: none).
    GraphCache(std::shared_ptr<const Graph> given, int givenMicrobatches, std::optional<GraphFamily> family,
               std::function<std::optional<RepeatedBlocks>(const RepeatedBlocks& layers)> fold);
    /// The variant for `microbatches`. Throws InputError when it cannot be built.
    std::shared_ptr<const GraphVariant> get(int microbatches);
    /// Every graph built so far (the given one first).
    std::vector<std::shared_ptr<const Graph>> graphs() const;

private:
    /// Fills `v`'s layers and folded run from `g`.
    void findBlocks(GraphVariant& v, const Graph& g) const;

    mutable std::mutex mutex_;
    std::optional<GraphFamily> family_;
    std::function<std::optional<RepeatedBlocks>(const RepeatedBlocks&)> fold_;
    std::map<int, std::shared_ptr<const GraphVariant>> variants_;
    std::shared_ptr<const Graph> given_;
};

} // namespace shardscope
