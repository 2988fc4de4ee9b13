#pragma once
// The joint search on one mesh: per-op strategies together with the open step settings (ZeRO stage,
// recomputation, micro-batches). Three passes, so that memory is a hard constraint and cheap ways to
// save it are tried before expensive ones:
//   floor()     every baseline pattern x settings combination, priced without tables;
//   explore()   per combination, the exact unconstrained optimum (memory weight 0), skipping
//               combinations that bounds or dominance show cannot beat the best plan that fits;
//   fitMemory() only for combinations whose unconstrained optimum is faster than every plan that fits
//               but does not fit itself: a walk along the memory/time hull of memory weights,
//               stopped once it gets slower.
// Passes share the best step time that fits across meshes (SharedBound), which only ever prunes
// work that could not have won.

#include "engine/search/graph_family.h"
#include "engine/search/plan_score.h"
#include "engine/search/search_problem.h"
#include "engine/search/settings_space.h"
#include "engine/search/solver.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

class Cluster;

/// The fastest step time that fits found so far, over every mesh and pass. Thread-safe.
class SharedBound {
public:
    /// Records a plan that fits.
    void fits(double stepTime);
    /// The fastest plan that fits so far (infinity if none).
    double bestFeasible() const;
    /// True when `lowerBound` proves a plan cannot beat the best that fits (beyond rounding).
    bool cannotWin(double lowerBound) const;
    /// (seconds since construction, best step time that fits) at every improvement.
    std::vector<std::pair<double, double>> history() const;

private:
    mutable std::mutex mutex_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double best_ = std::numeric_limits<double>::infinity();
    std::vector<std::pair<double, double>> history_;
};

/// What a mesh search needs from the request.
struct MeshSearchInput {
    std::shared_ptr<const Cluster> cluster;
    GraphCache* graphs = nullptr;
    SettingsSpace space;
    AxisSet zeroAxes = 0;                               ///< axes ZeRO shards over on this mesh
    std::vector<std::optional<StrategyPin>> pins;       ///< per op (locks included)
    std::vector<std::optional<OpStrategy>> locks;       ///< per op, to mark plans' locked ops
    std::vector<int> stageCut;                          ///< pipelined: blocks per model chunk, fixed; empty: chosen
    std::vector<int> blockStages;                       ///< pipelined: per block, the stage a locked op keeps it on, or -1
    SearchAlgorithm algorithm = SearchAlgorithm::Auto;
    /// Bounds a previous search proved on this mesh and schedule (SearchMemory::bounds), still valid.
    std::vector<std::pair<StepSettings, double>> previousBounds;
    const Plan* start = nullptr;                        ///< a plan of this mesh weighed first (SearchRequest::start)
    std::stop_token stop;
    std::function<void(double)> progress;               ///< fraction of this mesh's work done
};

/// A plan the search may answer with.
struct CandidatePlan {
    Plan plan;
    Score score;
    std::shared_ptr<const GraphVariant> graph;          ///< the graph of its micro-batch count
    SearchAlgorithm solver = SearchAlgorithm::Auto;     ///< what produced it, unless a baseline did
    std::optional<std::string> baseline;                ///< the baseline spec, when one won
};

/// The joint search over one mesh.
class MeshSearch {
public:
    /// Searches `mesh`; `bound` is shared with the other meshes.
    MeshSearch(const Mesh& mesh, MeshSearchInput input, SharedBound& bound);
    ~MeshSearch();

    /// Pass 1: the best baseline over the settings space.
    void floor();
    /// Pass 2: the unconstrained optimum of every combination that could win.
    void explore();
    /// Pass 3: memory weights where the unconstrained optimum does not fit but might win.
    void fitMemory();
    /// When no plan fits anywhere: the most memory-saving combination, with the memory sweep run to
    /// its end, so the answer is as close to fitting as the search can get.
    void closestToFitting();

    /// The best plan found, if any.
    const std::optional<CandidatePlan>& best() const { return best_; }
    /// The best named baseline of the floor pass, if any (the search simulates it among its finalists,
    /// so that the answer is never slower, simulated, than the best baseline).
    const std::optional<CandidatePlan>& bestBaseline() const { return bestBaseline_; }
    /// What happened: notes, states explored, combinations solved and pruned.
    const std::vector<std::string>& notes() const { return notes_; }
    /// Search states the solvers explored.
    double statesExplored() const { return states_; }
    /// Seconds spent inside the solvers.
    double solveSeconds() const { return solveSeconds_; }
    /// Folding of the last solve (tapas).
    int foldedBlocks() const { return foldedBlocks_; }
    int opsPerBlock() const { return opsPerBlock_; }
    /// True when a stop request cut the work short.
    bool cancelled() const { return cancelled_; }
    /// A lower bound on the step time of every plan of this mesh that fits, from the dual bounds of
    /// the combinations swept for memory (weak duality); infinity where every combination was solved
    /// exactly or shown to be no faster than a plan that fits. Nothing when a solve was not exact
    /// (the local-search fallback) or the search was cut short.
    std::optional<double> fittingLowerBound() const;
    /// Combinations solved, and pruned without a solve.
    int solved() const { return solved_; }
    int pruned() const { return pruned_; }
    /// Plans whose steps were not composed: their lower bounds (schedule_bound.h) could not win.
    int bounded() const { return bounded_; }
    /// The least lower bound of those that fit (infinity when none): when best() does not fit or is
    /// slower, the mesh's fastest plan that fits is at least this slow.
    double boundedStep() const { return boundedStep_; }
    /// The least lower bound of those that do not fit (infinity when none).
    double boundedOverflowStep() const { return boundedOverflowStep_; }
    /// The lower bounds found on its settings combinations (SearchMemory::bounds); nothing when a solve
    /// was not exact or the search was cut short.
    std::optional<std::vector<std::pair<StepSettings, double>>> searchBounds() const;

private:
    /// One settings combination on this mesh: its graph, cost model and (while needed) its tables.
    struct Combo {
        StepSettings settings;
        std::shared_ptr<const GraphVariant> graph;
        std::shared_ptr<const CostModel> model;
        PipelineLayout layout;                ///< on a mesh with a pipe axis: the fixed cut, else the balanced one (one keeping locked ops' stages)
        std::shared_ptr<const RepeatedBlocks> blocks; ///< pipelined: its graph's blocks (shared by its graph's combinations)
        std::vector<std::size_t> twin;        ///< per op: the op whose strategy it repeats (itself outside blocks 3..L)
        std::unique_ptr<SearchProblem> problem;
        SearchAlgorithm solver = SearchAlgorithm::Auto;
        double unconstrained = 0;             ///< the memory-weight-0 optimum's step time, once solved
        double unconstrainedMemory = 0;       ///< and its additive memory
        double fittingBound = 0;              ///< a lower bound on its plans that fit (SearchProblem::fittingLowerBound)
        /// (lambda, L) of exact weighted solves: every choice that fits takes at least L seconds,
        /// L = min over choices of (time + lambda memory) - lambda capacity (weak duality).
        std::vector<std::pair<double, double>> duals;
    };
    Combo& combo(const StepSettings& settings);
    /// The cut a pipelined combination starts from: the request's fixed cut, else balanced (empty),
    /// else with locked ops the most even cut keeping them on their stages (InputError when none does).
    std::vector<int> startingCut(const RepeatedBlocks& blocks, const StepSettings& settings) const;
    SearchProblem& problemOf(Combo& c);
    Solution solve(const SearchProblem& problem, Combo& c, double lambda);
    /// A choice's figures and the stage cut they are for.
    struct Scored {
        Score score;
        PipelineLayout layout;  ///< the combination's, or the cut chosen for the choice
        double fastest = 0;     ///< the least step time over the cuts evaluated, fitting or not
        /// Set when no step was composed: every cut's lower bound (schedule_bound.h) showed it cannot
        /// win. score.stepTime and fastest then only bound the step from below.
        bool bounded = false;
    };
    /// The plan of `choice` in combination `c` with the stage cut `layout`.
    Plan planOf(const Combo& c, const std::vector<int>& choice, const PipelineLayout& layout) const;
    /// `plan` (pipelined, of combination `c`) evaluated in full on its cut and, unless the request
    /// fixed the cut, on the cut chooseStageCut() finds for it: the better of the two. Unless `exact`,
    /// a cut whose schedule's lower bound cannot win is not composed (Scored::bounded).
    Scored scoreCut(const Combo& c, Plan plan, bool exact) const;
    /// The step time, peak and fit of `choice` in combination `c`. Pipelined: evaluated in full, on
    /// the combination's cut and, unless the request fixed the cut, on the cut chooseStageCut() finds
    /// for the choice (the faster of the two). Always composed: a solve's step bounds the settings it
    /// dominates and the combinations that share its edges (explore()), more tightly than a bound.
    Scored scoreOf(const Combo& c, const std::vector<int>& choice) const;
    /// The step below which a plan's step is worth composing: the best plan that fits so far.
    double cutoff() const;
    /// Records a solver's choice: its fit (recordFit()), and its plan only when it is preferred to
    /// the best so far.
    void considerChoice(const Combo& c, const std::vector<int>& choice, const Scored& scored);
    /// Records a plan that fits: the shared bound and this mesh's best.
    void recordFit(double stepTime);
    /// Counts a plan that was only bounded (Scored::bounded) and keeps the least bound.
    void recordBounded(const Scored& scored);
    bool dominated(const StepSettings& s, const std::vector<std::pair<StepSettings, double>>& bounds) const;
    /// True when another ZeRO stage of the same recomputation and micro-batches, with its tables
    /// built already, is at least as fast and small for every choice (SearchProblem::noBetterThan),
    /// so `c` need not be solved.
    bool worseZeroStage(Combo& c);
    /// The combination of these settings when its op tables are built (and not cancelled), else null.
    const Combo* withTables(int microbatches, Recompute recompute, int zeroStage) const;
    /// True when less recomputation at the same ZeRO stage and micro-batches, with its tables built
    /// already, recomputes the same ops (the same edge tables) and is at least as fast and small for
    /// every choice: `c` recomputes nothing that saves memory, so it need not be solved.
    bool worseRecomputation(Combo& c);
    std::optional<Plan> pinnedBaseline(const Combo& c, const std::string& spec) const;
    /// A whole plan of combination `c` (a baseline, the starting plan) scored within the cutoff:
    /// pipelined, on its cut or the one chooseStageCut() finds for it (scoreCut()); else composed.
    Scored scoreWithin(const Combo& c, const Plan& plan) const;
    /// Weighs in_.start (a plan of this mesh and schedule) as a candidate, before the baselines.
    void weighStart();
    void sweep(Combo& c, double ceilingScale, bool toTheEnd);
    /// True when a dual bound of a swept combination with the same micro-batches and recomputation
    /// (so the same edges), moved to `c` by SearchProblem::minIncrease, shows that nothing of `c`
    /// that fits beats the best plan that fits.
    bool dualBoundRulesOut(Combo& c);
    /// True when `time` cannot beat the best plan that fits, on this mesh or any other.
    bool cannotWin(double time) const;
    void progress(double fraction) const;

    Mesh mesh_;
    MeshSearchInput in_;
    SharedBound& bound_;
    double capacity_ = 0;
    CommModel comm_;                                             ///< this mesh's collective spans, for every model
    std::map<std::tuple<int, int, int>, std::unique_ptr<Combo>> combos_;
    std::vector<std::pair<StepSettings, double>> searchBounds_;  ///< lower bound per combination
    std::vector<StepSettings> pending_;                          ///< for fitMemory(), fastest first
    std::map<int, StrategyCache> strategies_;                    ///< per micro-batch count (graph)
    std::shared_ptr<const EdgeParts> edgeParts_;                 ///< of the micro-batch count explored
    int edgePartsOf_ = 0;                                        ///< that count
    std::optional<CandidatePlan> best_;
    std::optional<CandidatePlan> bestBaseline_;
    double ownBestFeasible_ = std::numeric_limits<double>::infinity();
    int memoryBounded_ = 0;   ///< combinations ruled out by their op tables' memory-weighted bound
    std::vector<std::string> notes_;
    double states_ = 0;
    double solveSeconds_ = 0;
    int foldedBlocks_ = 0, opsPerBlock_ = 0;
    int solved_ = 0, pruned_ = 0, sweeps_ = 0, dualPruned_ = 0;
    int bounded_ = 0;                                            ///< plans not composed (bounded())
    double boundedStep_ = std::numeric_limits<double>::infinity();
    double boundedOverflowStep_ = std::numeric_limits<double>::infinity();
    bool inexact_ = false;                                       ///< some solve was not exact
    double sweptBound_ = std::numeric_limits<double>::infinity(); ///< min over swept combos of their best dual
    bool cancelled_ = false;
};

} // namespace shardscope
