#include "engine/search/search.h"

#include "engine/cost/cost_model.h"
#include "engine/plans/baselines.h"
#include "engine/search/search_problem.h"
#include "engine/search/local_search.h"
#include "engine/search/solver.h"
#include "engine/util/error.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <map>
#include <thread>

namespace shardscope {

namespace {

using Clock = std::chrono::steady_clock;

/// The best plan found on one mesh.
struct MeshOutcome {
    Plan plan;
    double stepTime = 0;     ///< the plan's step time and fit, from the problem's tables
    bool feasible = false;
    bool valid = false;
    std::string algorithm;
    double states = 0;
    int foldedBlocks = 0;
    int opsPerBlock = 0;
    std::vector<std::string> notes;
    bool cancelled = false;
};

/// Serialises progress reports from worker threads and tracks the best step time.
class ProgressSink {
public:
    ProgressSink(const SearchRequest& r, int meshes, Clock::time_point start)
        : callback_(r.progress), meshes_(meshes), start_(start) {}
    void report(int mesh, double fraction) {
        std::lock_guard lock(mutex_);
        if (mesh >= 0)
            done_[mesh] = fraction;
        if (!callback_)
            return;
        double sum = 0;
        for (const auto& [m, f] : done_)
            sum += f;
        callback_(SearchProgress{sum / meshes_, best_});
    }
    void improved(double stepTime) {
        std::lock_guard lock(mutex_);
        if (stepTime < best_) {
            best_ = stepTime;
            history_.emplace_back(std::chrono::duration<double>(Clock::now() - start_).count(), stepTime);
        }
    }
    /// Records a plan that fits.
    void fits(double stepTime) {
        std::lock_guard lock(mutex_);
        bestFeasible_ = std::min(bestFeasible_, stepTime);
    }
    /// The fastest plan that fits found so far on any mesh (infinity if none).
    double bestFeasible() {
        std::lock_guard lock(mutex_);
        return bestFeasible_;
    }
    std::vector<std::pair<double, double>> history() {
        std::lock_guard lock(mutex_);
        return history_;
    }

private:
    std::mutex mutex_;
    std::function<void(const SearchProgress&)> callback_;
    int meshes_;
    Clock::time_point start_;
    std::map<int, double> done_;
    double best_ = std::numeric_limits<double>::infinity();
    double bestFeasible_ = std::numeric_limits<double>::infinity();
    std::vector<std::pair<double, double>> history_;
};

Plan planFrom(const SearchProblem& problem, const std::vector<int>& choice, const Mesh& mesh,
              const StepSettings& settings, const std::vector<std::optional<OpStrategy>>& locks,
              const std::string& name) {
    Plan plan = Plan::replicated(std::size_t(problem.size()), mesh);
    plan.name = name;
    plan.settings = settings;
    for (int v = 0; v < problem.size(); ++v) {
        plan.strategies[std::size_t(v)] = problem.candidates(v)[std::size_t(choice[std::size_t(v)])];
        plan.locked[std::size_t(v)] = std::size_t(v) < locks.size() && locks[std::size_t(v)].has_value();
    }
    return plan;
}

/// The candidate index of `strategy` for op `v`, or -1.
int candidateIndex(const SearchProblem& p, int v, const OpStrategy& strategy) {
    const auto& c = p.candidates(v);
    for (std::size_t k = 0; k < c.size(); ++k)
        if (c[k] == strategy)
            return int(k);
    return -1;
}

/// A choice's figures in the problem's own terms: exact step time and peak memory without building
/// the per-op breakdown of a full evaluation.
struct Score {
    double stepTime = std::numeric_limits<double>::infinity();
    bool feasible = false;
};

/// True when `a` beats `b`: feasible first, then faster.
bool better(const Score& a, const Score& b) {
    if (a.feasible != b.feasible)
        return a.feasible;
    return a.stepTime < b.stepTime;
}

/// Per op, what the search must keep: a lock pins every axis, a tactic's pin some.
std::vector<std::optional<StrategyPin>> pinsOf(const SearchRequest& r) {
    std::vector<std::optional<StrategyPin>> pins = r.pins;
    pins.resize(std::max(r.pins.size(), r.locks.size()));
    for (std::size_t v = 0; v < r.locks.size(); ++v)
        if (r.locks[v])
            pins[v] = StrategyPin::of(*r.locks[v]);
    return pins;
}

/// True when every op of blocks 2..L has the pin of its twin in block 1 (folding keeps them then).
bool pinsRepeat(const RepeatedBlocks& blocks, const std::vector<std::optional<StrategyPin>>& pins) {
    auto pinOf = [&](OpId o) { return o.index() < pins.size() ? pins[o.index()] : std::nullopt; };
    for (std::size_t b = 2; b < blocks.blocks.size(); ++b)
        for (std::size_t q = 0; q < blocks.blocks[b].size(); ++q)
            if (pinOf(blocks.blocks[b][q]) != pinOf(blocks.blocks[1][q]))
                return false;
    return true;
}

MeshOutcome searchOnMesh(const SearchRequest& request, const Mesh& mesh, int meshIndex, ProgressSink& sink,
                         const RepeatedBlocks* folded) {
    // ZeRO without axes means: over this mesh's data axis.
    MeshOutcome out;
    if (request.stop.stop_requested()) {
        out.cancelled = true; // not searched; search() falls back if no mesh was
        return out;
    }
    SearchRequest r = request;
    if (r.settings.zeroStage > 0 && r.settings.zeroAxes == 0)
        r.settings.zeroAxes = axisBit(mesh.find("data").value_or(AxisId(0)));
    const Graph& g = *r.graph;
    const CostModel model(g, *r.cluster, mesh, r.settings);
    const double capacity = r.cluster->device.memoryBytes;

    // Ops of folded blocks 3..L share the tables (and the baseline strategy) of their twin in block 2.
    std::vector<std::size_t> twin(g.ops().size());
    for (std::size_t v = 0; v < twin.size(); ++v)
        twin[v] = folded && folded->blockOf[v] >= 2 ? folded->blocks[1][std::size_t(folded->positionOf[v])].index() : v;

    // Baselines with the request's settings, locks and pins: the floor the search must not fall
    // below. A baseline that a pin makes invalid is no floor.
    const std::vector<std::optional<StrategyPin>> pins = pinsOf(r);
    std::vector<Plan> baselines;
    for (const char* name : {"dp", "megatron", "megatron-sp"}) {
        Plan b;
        try {
            b = baselinePlan(g, mesh, name, r.settings, &twin);
        } catch (const InputError&) {
            continue; // e.g. no model axis on this mesh
        }
        b.settings = r.settings;
        bool valid = true;
        for (std::size_t v = 0; v < pins.size() && v < b.strategies.size() && valid; ++v)
            if (pins[v]) {
                for (std::size_t a = 0; a < pins[v]->factorOfAxis.size() && a < mesh.rank(); ++a)
                    if (pins[v]->factorOfAxis[a])
                        b.strategies[v].factorOfAxis[a] = *pins[v]->factorOfAxis[a];
                b.locked[v] = v < r.locks.size() && r.locks[v].has_value();
                valid = verifyStrategy(g.ops()[v], mesh, b.strategies[v]).empty();
            }
        if (valid)
            baselines.push_back(std::move(b));
    }
    auto finish = [&](Plan plan, std::string algorithm, double stepTime, bool feasible) {
        out.plan = std::move(plan);
        out.plan.name = "search";
        out.stepTime = stepTime;
        out.feasible = feasible;
        out.valid = true;
        out.algorithm = std::move(algorithm);
        sink.report(meshIndex, 1.0);
        return out;
    };
    const SearchProblem problem(model, pins, folded, r.stop);
    if (problem.cancelled()) {
        out.cancelled = true;
        return out;
    }
    auto score = [&](const std::vector<int>& choice) {
        return Score{problem.stepTime(choice), problem.peakMemory(choice) <= capacity};
    };
    auto choiceOf = [&](const Plan& p) {
        std::vector<int> c(std::size_t(problem.size()), 0);
        for (int v = 0; v < problem.size(); ++v)
            if (twin[std::size_t(v)] == std::size_t(v))
                c[std::size_t(v)] = std::max(0, candidateIndex(problem, v, p.strategies[std::size_t(v)]));
        for (int v = 0; v < problem.size(); ++v)
            if (twin[std::size_t(v)] != std::size_t(v))
                c[std::size_t(v)] = c[twin[std::size_t(v)]];
        return c;
    };

    std::string algorithm = r.algorithm;
    if (algorithm == "auto")
        algorithm = folded ? "tapas" : "pase";
    const auto solver = makeSolver(algorithm);
    SolveControl control{r.stop, [&](double f) { sink.report(meshIndex, f * 0.5); }};
    auto solveOnce = [&](double lambda) -> Solution {
        if (r.algorithm != "auto")
            return solver->solve(problem, lambda, control);
        try {
            return solver->solve(problem, lambda, control);
        } catch (const InputError& e) {
            // Bounded fallback from the first baseline.
            const std::vector<int> start = baselines.empty() ? std::vector<int>(std::size_t(problem.size()), 0)
                                                             : choiceOf(baselines.front());
            Solution s = localSearch(problem, start, lambda, 50, control);
            s.note = std::string(e.what()) + "; fell back to " + s.note;
            algorithm = "local";
            return s;
        }
    };

    std::vector<int> best;
    Score bestScore;
    auto consider = [&](const Solution& s) {
        if (!s.complete)
            return false;
        const Score sc = score(s.choice);
        if (best.empty() || better(sc, bestScore)) {
            best = s.choice;
            bestScore = sc;
            sink.improved(sc.stepTime);
        }
        if (sc.feasible)
            sink.fits(sc.stepTime);
        return sc.feasible;
    };
    Solution sol = solveOnce(0);
    out.states += sol.statesExplored;
    out.foldedBlocks = sol.foldedBlocks;
    out.opsPerBlock = sol.opsPerBlock;
    if (!sol.note.empty())
        out.notes.push_back(sol.note);
    if (r.algorithm == "tapas" && !folded)
        out.notes.push_back("no repeated blocks found: solved unfolded");
    consider(sol);
    out.cancelled = !sol.complete;

    // Memory: a Lagrangian weight on memory, raised by 16x until the plan fits (up to a weight at which
    // memory dominates), then bisected geometrically for the smallest weight that fits. A weight can
    // only slow the plan down, so the sweep is skipped when even the unweighted plan is slower than
    // one that already fits on another mesh (this cannot change which plan wins).
    if (!best.empty() && !bestScore.feasible && !out.cancelled && bestScore.stepTime > sink.bestFeasible()) {
        out.notes.push_back("memory: not swept; the unconstrained plan is already slower than one that fits");
    } else if (!best.empty() && !bestScore.feasible && !out.cancelled) {
        const double scale = bestScore.stepTime / capacity;
        double lo = scale * 1e-3, hi = scale;
        int solves = 0;
        auto fitsAt = [&](double lambda) {
            const Solution s = solveOnce(lambda);
            ++solves;
            out.states += s.statesExplored;
            return consider(s);
        };
        bool fits = false;
        while (!fits && hi < scale * 1e10 && !r.stop.stop_requested()) {
            hi *= 16;
            if (!(fits = fitsAt(hi)))
                lo = hi;
        }
        for (int i = 0; i < 10 && fits && !r.stop.stop_requested(); ++i) {
            const double mid = std::sqrt(lo * hi);
            (fitsAt(mid) ? hi : lo) = mid;
        }
        out.notes.push_back(std::string("memory: ") +
                            (fits ? "a memory weight made the plan fit" : "no memory weight made the plan fit") +
                            " after " + std::to_string(solves) + " weighted solves");
        out.cancelled = r.stop.stop_requested();
    }

    Plan chosen = best.empty() ? Plan{} : planFrom(problem, best, mesh, r.settings, r.locks, "search");
    for (const Plan& b : baselines) {
        const Score sc = score(choiceOf(b));
        if (best.empty() || better(sc, bestScore)) {
            if (!best.empty())
                out.notes.push_back("baseline " + b.name + " on " + mesh.toString() + " beat the search plan");
            best = choiceOf(b);
            bestScore = sc;
            chosen = b;
            algorithm = "baseline:" + b.name;
        }
    }
    if (best.empty()) {
        chosen = Plan::replicated(g.ops().size(), mesh);
        bestScore = score(std::vector<int>(std::size_t(problem.size()), 0));
    }
    return finish(std::move(chosen), algorithm, bestScore.stepTime, bestScore.feasible);
}

} // namespace

std::vector<Mesh> candidateMeshes(int devices, int perNode) {
    // Minor axes stay inside a node: the model axis (and a third, seq, axis) divide the node size.
    std::vector<Mesh> meshes{Mesh{{MeshAxis{"data", devices}}}};
    for (int m = 2; m <= perNode && m <= devices; m *= 2)
        if (perNode % m == 0 && devices % m == 0)
            meshes.push_back(Mesh{{MeshAxis{"data", devices / m}, MeshAxis{"model", m}}});
    for (int inner = 4; inner <= perNode && inner <= devices; inner *= 2)
        for (int q = 2; q < inner; q *= 2)
            if (perNode % inner == 0 && devices % inner == 0 && devices / inner > 1)
                meshes.push_back(
                    Mesh{{MeshAxis{"data", devices / inner}, MeshAxis{"seq", q}, MeshAxis{"model", inner / q}}});
    return meshes;
}

std::shared_ptr<const SearchResult> search(const SearchRequest& r) {
    if (!r.graph || !r.cluster)
        throw InputError("search: no model or cluster");
    makeSolver(r.algorithm); // validates the name
    const auto start = Clock::now();
    const int devices = r.cluster->deviceCount();
    std::vector<Mesh> meshes = r.mesh ? std::vector<Mesh>{*r.mesh} : candidateMeshes(devices, r.cluster->devicesPerNode());
    for (const Mesh& m : meshes)
        m.verify(devices, r.cluster->name);
    if (!r.locks.empty()) {
        for (const Mesh& m : meshes)
            for (std::size_t v = 0; v < r.locks.size(); ++v)
                if (r.locks[v] && r.locks[v]->factorOfAxis.size() != m.rank())
                    throw InputError("lock on op '" + r.graph->ops()[v].name + "' is for a mesh of " +
                                     std::to_string(r.locks[v]->factorOfAxis.size()) + " axes, not " + m.toString());
    }
    for (std::size_t v = 0; v < r.pins.size(); ++v)
        if (r.pins[v] && (!r.mesh || r.pins[v]->factorOfAxis.size() != r.mesh->rank()))
            throw InputError("search: the fixed axes of op '" + r.graph->ops()[v].name + "' need the mesh they were "
                             "fixed on");
    // Repeated layers, folded unless locks or pins make the blocks differ.
    std::optional<RepeatedBlocks> blocks;
    if (r.algorithm == "auto" || r.algorithm == "tapas") {
        blocks = findRepeatedBlocks(*r.graph);
        if (blocks && !pinsRepeat(*blocks, pinsOf(r)))
            blocks.reset();
    }
    const RepeatedBlocks* folded = blocks ? &*blocks : nullptr;
    ProgressSink sink(r, int(meshes.size()), start);
    auto result = std::make_shared<SearchResult>();
    SearchReport& report = result->report;
    // Every mesh on the thread pool; outcomes and errors by mesh index, so the choice is deterministic.
    auto searchMeshes = [&](const SearchRequest& req) {
        std::vector<MeshOutcome> outcomes(meshes.size());
        std::vector<std::string> errors(meshes.size());
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            // The most model-parallel meshes first: they tend to fit, which lets the others skip their
            // memory sweeps.
            for (std::size_t k = next++; k < meshes.size(); k = next++) {
                const std::size_t i = meshes.size() - 1 - k;
                try {
                    outcomes[i] = searchOnMesh(req, meshes[i], int(i), sink, folded);
                } catch (const InputError& e) {
                    errors[i] = e.what();
                }
            }
        };
        const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
        const std::size_t threads = std::min<std::size_t>(meshes.size(), r.threads > 0 ? std::size_t(r.threads) : hw);
        std::vector<std::thread> pool;
        for (std::size_t t = 1; t < threads; ++t)
            pool.emplace_back(worker);
        worker();
        for (auto& t : pool)
            t.join();
        std::optional<std::size_t> best;
        for (std::size_t i = 0; i < meshes.size(); ++i) {
            if (!errors[i].empty()) {
                if (meshes.size() == 1)
                    throw InputError(errors[i]);
                report.notes.push_back(meshes[i].toString() + ": " + errors[i]);
                continue;
            }
            const MeshOutcome& o = outcomes[i];
            report.statesExplored += o.states;
            report.cancelled = report.cancelled || o.cancelled;
            if (!o.valid)
                continue;
            report.meshesTried.push_back({meshes[i], o.stepTime, o.feasible});
            for (const std::string& n : o.notes)
                report.notes.push_back(meshes.size() > 1 ? meshes[i].toString() + ": " + n : n);
            if (!best || better(Score{o.stepTime, o.feasible},
                                Score{outcomes[*best].stepTime, outcomes[*best].feasible}))
                best = i;
        }
        return best ? std::optional<MeshOutcome>(std::move(outcomes[*best])) : std::nullopt;
    };
    std::optional<MeshOutcome> best = searchMeshes(r);
    if (!best && r.stop.stop_requested()) {
        // Stopped before any mesh finished: the data-parallel baseline on the first mesh.
        best = MeshOutcome{};
        best->plan = baselinePlan(*r.graph, meshes.front(), "dp", r.settings);
        best->plan.settings = r.settings;
        best->plan.name = "search";
        best->algorithm = "baseline:dp";
        best->valid = true;
        report.cancelled = true;
    }
    // Nothing fits without ZeRO: shard parameter storage over the data axis, stage by stage.
    for (int stage = 1; best && !best->feasible && r.settings.zeroStage == 0 && stage <= 3 &&
                        !r.stop.stop_requested();
         ++stage) {
        SearchRequest zero = r;
        zero.settings.zeroStage = stage;
        zero.settings.zeroAxes = 0;
        auto withZero = searchMeshes(zero);
        if (withZero && withZero->feasible) {
            report.notes.push_back("no plan fit without ZeRO; ZeRO stage " + std::to_string(stage) +
                                   " over the data axis made one fit");
            best = std::move(withZero);
        }
    }
    if (!best)
        throw InputError("search: no mesh could be searched");
    result->plan = std::move(best->plan);
    if (best->algorithm.rfind("baseline:", 0) != 0) {
        // Say what chose each axis: the search, or the lock or pin it kept.
        const auto pins = pinsOf(r);
        result->plan.whyByDefault = "chosen by the search (" + best->algorithm + ")";
        result->plan.why.clear();
        for (std::size_t o = 0; o < pins.size(); ++o)
            for (std::size_t a = 0; pins[o] && a < result->plan.mesh.rank(); ++a) {
                result->plan.why.resize(r.graph->ops().size());
                result->plan.why[o].resize(result->plan.mesh.rank());
                if (o < r.locks.size() && r.locks[o])
                    result->plan.why[o][a] = "locked by hand";
                else if (pins[o]->factorOfAxis[a])
                    result->plan.why[o][a] = "fixed before the search";
            }
    }
    report.algorithm = best->algorithm;
    report.foldedBlocks = best->foldedBlocks;
    report.opsPerBlock = best->opsPerBlock;
    report.history = sink.history();
    report.searchSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    // The chosen plan's full breakdown, timed apart: it is the result's presentation, not the search.
    const auto evaluated = Clock::now();
    const CostModel model(*r.graph, *r.cluster, result->plan.mesh, result->plan.settings);
    result->evaluation = evaluate(model, result->plan);
    report.evaluationSeconds = std::chrono::duration<double>(Clock::now() - evaluated).count();
    return result;
}

} // namespace shardscope
