#include "problem.h"

#include "engine/io/cluster_file.h"

namespace shardscope::ui {

std::shared_ptr<const Problem> makeProblem(Graph graph, Cluster cluster, const ModelRequest& model,
                                           const std::string& clusterSpec, std::optional<int> nodes, int microbatches) {
    auto p = std::make_shared<Problem>();
    p->graph = std::move(graph);
    p->cluster = std::move(cluster);
    p->model = model;
    p->clusterSpec = clusterSpec;
    p->nodes = nodes;
    p->builder = resolveBuilder(model);
    p->microbatches = microbatches;
    p->edges = graphEdges(p->graph);
    p->blocks = findRepeatedBlocks(p->graph);
    return p;
}

std::shared_ptr<const Problem> loadProblem(const ModelRequest& model, const std::string& clusterSpec,
                                           std::optional<int> nodes, int microbatches) {
    Cluster cluster = loadCluster(clusterSpec, nodes);
    return makeProblem(loadModel(model, microbatches), std::move(cluster), model, clusterSpec, nodes, microbatches);
}

std::shared_ptr<const Problem> rebuiltProblem(const Problem& base, std::optional<int> batch, int microbatches) {
    ModelRequest model = base.model;
    if (batch)
        model.batch = batch;
    return makeProblem(loadModel(model, microbatches), base.cluster, model, base.clusterSpec, base.nodes, microbatches);
}

} // namespace shardscope::ui
