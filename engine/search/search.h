#pragma once
// The search entry point: graph, cluster, a fixed mesh or "choose the mesh", step settings (each
// fixed or open), locks, progress callback and stop token in; plan, its evaluation and a report out.

#include "engine/evaluation/evaluation.h"
#include "engine/plans/plan.h"
#include "engine/search/graph_family.h"
#include "engine/search/search_memory.h"
#include "engine/search/settings_space.h"
#include "engine/search/solver.h"
#include "engine/sim/simulator.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

/// Progress of a search: fraction done and the best step time that fits found so far (infinity
/// before any).
struct SearchProgress {
    double fraction = 0;
    double bestStepTime = 0;
};

/// What to search.
struct SearchRequest {
    std::shared_ptr<const Graph> graph;              ///< the graph of settings.microbatches micro-batches
    std::shared_ptr<const Cluster> cluster;
    std::optional<Mesh> mesh;                        ///< nullopt: choose the mesh
    StepSettings settings;                           ///< the fixed settings (open ones are chosen)
    OpenSettings open;                               ///< which settings the search chooses
    std::optional<GraphFamily> family;               ///< other micro-batch counts' graphs (open micro-batches)
    std::vector<std::optional<OpStrategy>> locks;    ///< per op; empty or nullopt = free
    std::vector<std::optional<StrategyPin>> pins;    ///< per op: axes fixed by tactics (needs a fixed mesh)
    /// A fixed stage cut (blocks per model chunk, pipe x virtual stages of them; needs a fixed mesh with
    /// a pipe axis; it fixes V too); empty: the search chooses the cut (stage_cuts.h).
    std::vector<int> stageCut;
    /// Per repeated block, the stage a locked op keeps it on, or -1 (lockedBlockStages()); needs a fixed
    /// mesh with a pipe axis. Empty: no block is kept anywhere.
    std::vector<int> blockStages;
    SearchAlgorithm algorithm = SearchAlgorithm::Auto;
    /// A previous search's bounds (SearchResult::memory): used when they carry over to this request
    /// (SearchMemory::carriesOver: the same problem with more locks, pins or stage constraints), so
    /// that combinations they show cannot win are neither tabled nor solved. Ignored otherwise.
    std::shared_ptr<const SearchMemory> previous;
    /// A plan of this problem (the one being edited, locks applied) weighed first on its mesh and
    /// settings, as a candidate: its step bounds the rest of the search from the start.
    std::optional<Plan> start;
    int threads = 0;                                 ///< mesh worker threads; 0 = hardware
    std::function<void(const SearchProgress&)> progress;
    std::stop_token stop;
};

/// One mesh the search tried: its best plan's figures.
struct MeshTried {
    Mesh mesh;
    double stepTime = 0;
    bool feasible = false;
    std::string schedule;      ///< pipelined meshes: "1f1b", "interleaved x 3"; else empty
    /// Set when the mesh's fastest plans had their steps only bounded, not composed (the bounds could
    /// not beat a plan found elsewhere): stepTime is then the least of those bounds (of plans that
    /// fit when any does).
    bool lowerBound = false;
};

/// How the search went.
struct SearchReport {
    SearchAlgorithm solver = SearchAlgorithm::Auto;  ///< the algorithm that produced the plan
    std::optional<std::string> baseline;             ///< set when a named baseline was the best plan
    double searchSeconds = 0;          ///< engine wall time to choose the plan (tables, solves, meshes)
    double simulationSeconds = 0;      ///< of searchSeconds, simulating the finalists (finalists.h)
    double solveSeconds = 0;           ///< of searchSeconds, inside the solvers (PaSE, TAPAS, brute force)
    int finalistsSimulated = 0;        ///< how many finalists were simulated
    double evaluationSeconds = 0;      ///< then the full per-op evaluation of the chosen plan
    double statesExplored = 0;
    int combinationsSolved = 0;        ///< (mesh, settings) combinations solved, memory sweeps included
    int combinationsPruned = 0;        ///< skipped by bounds or dominance
    int plansBounded = 0;              ///< plans whose step was not composed: its lower bound could not win
    bool incremental = false;          ///< a previous search's bounds carried over (SearchRequest::previous)
    std::vector<MeshTried> meshesTried;
    int foldedBlocks = 0;              ///< tapas: repeated blocks folded
    int opsPerBlock = 0;
    std::vector<std::pair<double, double>> history; ///< (seconds, best step time that fits) as it improved
    std::vector<std::string> notes;    ///< settings chosen, memory sweeps, fallbacks
    std::vector<std::string> fitAdvice; ///< when nothing fits: the smallest changes that fit, with figures
    /// When the plan fits and every solve was exact: how much slower it can be than the fastest plan
    /// that fits, as a fraction of its step time (0: it is the fastest). From the dual bounds of the
    /// memory sweeps; every other combination was solved exactly or bounded by a plan that fits.
    std::optional<double> optimalityGap;
    bool cancelled = false;

    /// "tapas", or "baseline megatron-sp+zero1" when a baseline won.
    std::string chosenBy() const;
};

/// A search's outcome. Immutable once returned.
struct SearchResult {
    Plan plan;
    std::shared_ptr<const Graph> graph;  ///< the graph the plan is for (its micro-batch count's)
    std::shared_ptr<const CostModel> model;       ///< the plan's cost model (its graph, mesh and settings)
    std::shared_ptr<const Evaluation> evaluation; ///< evaluate(*model, plan)
    /// The plan's simulated step (without timelines): the step time the search answers with. Null
    /// when the search was stopped before it simulated.
    std::shared_ptr<const SimResult> simulation;
    SearchReport report;
    /// What the search proved, for a re-search after an edit (SearchRequest::previous); null when it
    /// was stopped.
    std::shared_ptr<const SearchMemory> memory;

    /// The plan's step time: simulated, or the analytic one when it was not simulated.
    double stepTime() const { return simulation ? simulation->stepTime : evaluation->stepTime; }
};

/// Runs the search: the fastest plan that fits over the candidate meshes, the open settings and the
/// per-op strategies. The plan keeps every lock and pin, is never slower than any named baseline
/// (every pattern with every ZeRO stage of the space, on every mesh and settings combination, where
/// they agree with the pins) and fits whenever one of them does. When nothing fits it is the plan
/// closest to fitting and the report's fitAdvice says what would fit.
/// On stop it returns within 100 ms with the best plan so far. Deterministic for the same input.
/// Throws InputError for a bad lock or a mesh that does not fit the cluster.
std::shared_ptr<const SearchResult> search(const SearchRequest& request);

/// The largest tensor (x context) parallel group the mesh choice tries: wider groups leave a
/// transformer's GEMMs too thin to pay even at NVLink speed; `--mesh` reaches a whole NVL72 domain.
constexpr int kMaxSearchedScaleUp = 16;

/// The meshes "choose the mesh" tries for `devices` devices in scale-up domains of `perNode`
/// (Cluster::scaleUpSize: a DGX node, an NVL72 rack): one data axis; data x model with model a
/// power-of-two divisor of the domain size; data x seq x model with seq x model one (the minor axes
/// stay inside a domain), up to kMaxSearchedScaleUp devices. search() adds pipelinedMeshes() for
/// models with repeated blocks.
std::vector<Mesh> candidateMeshes(int devices, int perNode);

/// The largest expert-parallel degree the mesh choice tries (Megatron runs 8 to 64).
constexpr int kMaxSearchedExpertDegree = 64;

/// For a model with experts (ops with an expert hint), the meshes `data=D/E,expert=E` the mesh choice
/// adds: E a power of two dividing the expert count and `devices`, up to kMaxSearchedExpertDegree,
/// with at least two data-parallel groups of it (E = devices is experts over `data`, which the plain
/// data mesh already reaches). None for a dense model.
std::vector<Mesh> expertMeshes(const Graph& graph, int devices);

} // namespace shardscope
