#include "problem.h"

#include "engine/io/cluster_file.h"

namespace shardscope::ui {

std::shared_ptr<const Problem> makeProblem(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster,
                                           ModelSource source,
                                           const std::string& clusterSpec, std::optional<int> nodes, int microbatches) {
    auto p = std::make_shared<Problem>();
    p->graph = std::move(graph);
    p->cluster = std::move(cluster);
    p->source = std::move(source);
    p->clusterSpec = clusterSpec;
    p->nodes = nodes;
    p->microbatches = microbatches;
    p->edges = graphEdges(*p->graph);
    p->blocks = findLayers(*p->graph);
    return p;
}

std::shared_ptr<const Problem> loadProblem(const ModelSource& source, const std::string& clusterSpec,
                                           std::optional<int> nodes, int microbatches) {
    auto cluster = std::make_shared<const Cluster>(loadCluster(clusterSpec, nodes));
    return makeProblem(std::make_shared<const Graph>(source.build(microbatches)), std::move(cluster), source, clusterSpec,
                       nodes, microbatches);
}

std::shared_ptr<const Problem> rebuiltProblem(const Problem& base, std::optional<int> batch, int microbatches) {
    const ModelSource source = batch ? base.source.withBatch(batch) : base.source;
    return makeProblem(std::make_shared<const Graph>(source.build(microbatches)), base.cluster, source, base.clusterSpec,
                       base.nodes, microbatches);
}

} // namespace shardscope::ui
