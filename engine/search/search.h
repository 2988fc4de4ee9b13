#pragma once
// The search entry point (DESIGN 2.6): graph, cluster, mesh or "choose the mesh", step settings,
// locks, progress callback and stop token in; plan, its evaluation and a report out.

#include "engine/cost/evaluation.h"
#include "engine/plans/plan.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

/// Progress of a search: fraction done and the best step time found so far (infinity before any).
struct SearchProgress {
    double fraction = 0;
    double bestStepTime = 0;
};

/// What to search.
struct SearchRequest {
    const Graph* graph = nullptr;
    const Cluster* cluster = nullptr;
    std::optional<Mesh> mesh;                        ///< nullopt: choose the mesh
    StepSettings settings;
    std::vector<std::optional<OpStrategy>> locks;    ///< per op; empty or nullopt = free
    std::vector<std::optional<StrategyPin>> pins;    ///< per op: axes fixed by tactics (needs a fixed mesh)
    std::string algorithm = "auto";
    int threads = 0;                                 ///< mesh choice worker threads; 0 = hardware
    std::function<void(const SearchProgress&)> progress;
    std::stop_token stop;
};

/// One mesh the search tried.
struct MeshTried {
    Mesh mesh;
    double stepTime = 0;
    bool feasible = false;
};

/// How the search went.
struct SearchReport {
    std::string algorithm;             ///< the algorithm that produced the plan
    double searchSeconds = 0;          ///< engine wall time to choose the plan (tables, solves, meshes)
    double evaluationSeconds = 0;      ///< then the full per-op evaluation of the chosen plan
    double statesExplored = 0;
    std::vector<MeshTried> meshesTried;
    int foldedBlocks = 0;              ///< tapas: repeated blocks folded
    int opsPerBlock = 0;
    std::vector<std::pair<double, double>> history; ///< (seconds, best step time) as it improved
    std::vector<std::string> notes;    ///< memory sweep, fallbacks, baselines that won
    bool cancelled = false;
};

/// A search's outcome. Immutable once returned.
struct SearchResult {
    Plan plan;
    std::shared_ptr<const Evaluation> evaluation;
    SearchReport report;
};

/// Runs the search. The returned plan keeps every lock and pin, is never worse than the baselines (dp,
/// megatron, megatron-sp with the request's settings, where they agree with the pins), and is
/// feasible whenever one of them is.
/// On stop it returns within 100 ms with the best plan so far. Deterministic for the same input.
/// Throws InputError for an unknown algorithm, a bad lock or a mesh that does not fit the cluster.
std::shared_ptr<const SearchResult> search(const SearchRequest& request);

/// The meshes "choose the mesh" tries for `devices` devices with `perNode` per node: one data axis;
/// data x model with model a divisor of the node size; data x seq x model with seq x model a divisor
/// of the node size (the minor axes stay inside a node).
std::vector<Mesh> candidateMeshes(int devices, int perNode);

} // namespace shardscope
