#include "engine/search/mesh_search.h"

#include "engine/cluster/cluster.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/evaluation/schedule_bound.h"
#include "engine/pipeline/pipeline_layout.h"
#include "engine/search/stage_cuts.h"
#include "engine/search/local_search.h"
#include "engine/util/error.h"

#include <algorithm>
#include <cmath>

namespace shardscope {

void SharedBound::fits(double stepTime) {
    std::lock_guard lock(mutex_);
    if (stepTime < best_) {
        best_ = stepTime;
        history_.emplace_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                              stepTime);
    }
}

std::vector<std::pair<double, double>> SharedBound::history() const {
    std::lock_guard lock(mutex_);
    return history_;
}

double SharedBound::bestFeasible() const {
    std::lock_guard lock(mutex_);
    return best_;
}

bool SharedBound::cannotWin(double lowerBound) const { return lowerBound > bestFeasible() * (1 + 1e-9); }


MeshSearch::MeshSearch(const Mesh& mesh, MeshSearchInput input, SharedBound& bound)
    : mesh_(mesh), in_(std::move(input)), bound_(bound), capacity_(in_.cluster->device.memoryBytes),
      comm_(*in_.cluster, mesh_) {}

MeshSearch::~MeshSearch() = default;

MeshSearch::Combo& MeshSearch::combo(const StepSettings& s) {
    const auto key = std::make_tuple(s.microbatches, int(s.recompute), s.zeroStage);
    auto& slot = combos_[key];
    if (!slot) {
        slot = std::make_unique<Combo>();
        slot->settings = s;
        slot->graph = in_.graphs->get(s.microbatches);
        // Another combination of this graph lends its edges and gradient flags.
        const CostModel* like = nullptr;
        for (const auto& [key, other] : combos_)
            if (other.get() != slot.get() && other->model && std::get<0>(key) == s.microbatches)
                like = other->model.get();
        slot->model = like ? std::make_shared<const CostModel>(*like, s)
                           : std::make_shared<const CostModel>(slot->graph->facts, in_.cluster, mesh_, s, comm_);
        const RepeatedBlocks* folded = slot->graph->folded();
        if (mesh_.pipelineStages() > 1) {
            // The same graph (micro-batch count) has the same blocks and starting cut: found once.
            for (const auto& [key, other] : combos_)
                if (other.get() != slot.get() && other->graph == slot->graph && other->layout.active()) {
                    slot->layout = other->layout;
                    slot->blocks = other->blocks;
                }
            if (!slot->blocks) {
                if (!slot->graph->cuts)
                    throw InputError("pipeline: model '" + slot->graph->graph->name +
                                     "' has no repeated blocks (layers) to cut into stages");
                slot->blocks = std::make_shared<const RepeatedBlocks>(*slot->graph->cuts);
            }
            if (!slot->layout.active())
                slot->layout = makePipelineLayout(*slot->graph->graph, *slot->blocks, mesh_.pipelineStages(),
                                                  s.virtualStages, startingCut(*slot->blocks, s));
        }
        slot->twin.resize(slot->graph->graph->ops().size());
        for (std::size_t v = 0; v < slot->twin.size(); ++v)
            slot->twin[v] = folded ? folded->twin(OpId(v)).index() : v;
    }
    return *slot;
}

SearchProblem& MeshSearch::problemOf(Combo& c) {
    if (!c.problem) {
        // Another combination of this graph lends the op tables its settings do not change; one
        // with the same recomputation lends all but the parameters' owners.
        const SearchProblem* like = nullptr;
        for (const auto& [key, other] : combos_)
            if (other.get() != &c && other->problem && !other->problem->cancelled() &&
                other->settings.microbatches == c.settings.microbatches &&
                (!like || other->settings.recompute == c.settings.recompute))
                like = other->problem.get();
        c.problem = std::make_unique<SearchProblem>(c.model, in_.pins, c.graph->folded(), in_.stop,
                                                    SearchProblem::Edges::Deferred, &strategies_[c.settings.microbatches],
                                                    like, c.blocks.get());
    }
    return *c.problem;
}

void MeshSearch::progress(double fraction) const {
    if (in_.progress)
        in_.progress(std::clamp(fraction, 0.0, 1.0));
}

Solution MeshSearch::solve(const SearchProblem& problem, Combo& c, double lambda) {
    if (!problem.hasEdges()) {
        // Edge costs do not depend on ZeRO: take the tables of a combination that differs only there.
        SearchProblem& p = *c.problem;
        for (const auto& [key, other] : combos_)
            if (other.get() != &c && other->problem && other->problem->hasEdges() &&
                std::get<0>(key) == c.settings.microbatches && std::get<1>(key) == int(c.settings.recompute)) {
                p.shareEdges(*other->problem);
                break;
            }
        // Nor, but for how often the forward part runs, on recomputation: weigh this count's parts.
        if (!p.hasEdges() && edgeParts_ && edgePartsOf_ == c.settings.microbatches)
            p.useEdgeParts(edgeParts_);
        if (!p.hasEdges()) {
            p.buildEdges(in_.stop);
            edgeParts_ = p.edgeParts();
            edgePartsOf_ = c.settings.microbatches;
        }
        if (p.cancelled()) {
            cancelled_ = true;
            Solution stopped;
            stopped.complete = false;
            return stopped;
        }
    }
    SearchAlgorithm a = in_.algorithm;
    if (a == SearchAlgorithm::Auto)
        a = problem.folded() ? SearchAlgorithm::Tapas : SearchAlgorithm::Pase;
    const SolveControl control{in_.stop, {}};
    Solution s;
    const auto started = std::chrono::steady_clock::now();
    try {
        s = makeSolver(a)->solve(problem, lambda, control);
    } catch (const InputError& e) {
        if (in_.algorithm != SearchAlgorithm::Auto)
            throw;
        // Bounded fallback from the data-parallel baseline.
        std::vector<int> start(std::size_t(problem.size()), 0);
        if (const auto dp = pinnedBaseline(c, "dp"))
            for (int v = 0; v < problem.size(); ++v) {
                const auto& cand = problem.candidates(v);
                const auto it = std::find(cand.begin(), cand.end(), dp->ops[std::size_t(v)].strategy);
                start[std::size_t(v)] = it == cand.end() ? 0 : int(it - cand.begin());
            }
        s = localSearch(problem, start, lambda, 50, control);
        s.note = std::string(e.what()) + "; fell back to " + s.note;
        a = SearchAlgorithm::Local;
    }
    solveSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    c.solver = a;
    inexact_ = inexact_ || a == SearchAlgorithm::Local;
    states_ += s.statesExplored;
    if (s.foldedBlocks > 0) {
        foldedBlocks_ = s.foldedBlocks;
        opsPerBlock_ = s.opsPerBlock;
    }
    if (!s.note.empty() && std::find(notes_.begin(), notes_.end(), s.note) == notes_.end())
        notes_.push_back(s.note);
    if (!s.complete)
        cancelled_ = true;
    return s;
}

std::vector<int> MeshSearch::startingCut(const RepeatedBlocks& blocks, const StepSettings& s) const {
    if (!in_.stageCut.empty())
        return in_.stageCut;
    if (in_.blockStages.empty())
        return {}; // balanced
    // The most even cut that keeps every locked op on its stage.
    const int L = blocks.count();
    const auto cut = chooseStageCut(uniformProfile(L), mesh_.pipelineStages(), s,
                                    std::numeric_limits<double>::infinity(), in_.blockStages);
    if (!cut)
        throw InputError("no cut into " + std::to_string(mesh_.pipelineStages()) + " stages x " +
                         std::to_string(s.virtualStages) + " virtual stages keeps the locked ops on their stages");
    return *cut;
}

Plan MeshSearch::planOf(const Combo& c, const std::vector<int>& choice, const PipelineLayout& layout) const {
    const SearchProblem& p = *c.problem;
    Plan plan;
    plan.mesh = mesh_;
    plan.name = "search";
    plan.settings = c.settings;
    plan.pipeline = layout;
    plan.ops.reserve(std::size_t(p.size()));
    for (int v = 0; v < p.size(); ++v) {
        const std::size_t o = std::size_t(v);
        plan.ops.push_back(OpChoice{p.candidates(v)[std::size_t(choice[o])], o < in_.locks.size() && in_.locks[o].has_value(), {}});
    }
    return plan;
}

double MeshSearch::cutoff() const {
    return std::min(ownBestFeasible_, bound_.bestFeasible() * (1 + 1e-9));
}

MeshSearch::Scored MeshSearch::scoreCut(const Combo& c, Plan plan, bool exact) const {
    const double within = exact ? std::numeric_limits<double>::infinity() : cutoff();
    const auto e = evaluate(*c.model, plan, c.graph->folded(), EvaluationDetail::Score, Composition::Streams, within);
    Scored out{Score{e->stepTime, e->peakMemory, e->feasible}, plan.pipeline, e->stepTime, e->stepIsBound};
    if (!in_.stageCut.empty())
        return out; // the request fixed the cut
    if (e->stepIsBound && cannotWin(anyCutLowerBound(*c.model, plan, *e)))
        return out; // no cut of these strategies can win
    if (e->feasible && !e->stepIsBound) {
        // No cut runs the stages faster than perfectly balanced: m sum/P + (sum - sum/P)/V'. When that
        // cannot win, or the stages are balanced already, no cut is worth choosing.
        double sum = 0, most = 0;
        for (const StageReport& st : e->pipeline.stages) {
            sum += st.perMicrobatch();
            most = std::max(most, st.perMicrobatch());
        }
        const double P = double(e->pipeline.stages.size()), m = c.settings.microbatches;
        const double V = c.settings.schedule == Schedule::Interleaved ? c.settings.virtualStages : 1;
        if (cannotWin(m * sum / P + (sum - sum / P) / V) || most <= sum / P * (1 + 1e-3))
            return out;
    }
    // The cut for this plan's costs: its slowest stage as fast as the memory allows.
    const CutProfile profile = cutProfile(*e, plan, *c.blocks, c.settings.microbatches);
    // A cut that does not fit is taken only when faster, never for fitting better: none is asked for.
    const auto cut = chooseStageCut(profile, plan.pipeline.stages, c.settings, capacity_, in_.blockStages, false);
    if (!cut || !cutGains(profile, plan.pipeline.chunkBlocks, *cut, plan.pipeline.stages, c.settings, capacity_))
        return out; // no gain the evaluation could confirm
    plan.pipeline = makePipelineLayout(*c.graph->graph, *c.blocks, plan.pipeline.stages, plan.pipeline.virtualStages, *cut);
    const auto recut = evaluate(*c.model, plan, c.graph->folded(), EvaluationDetail::Score, Composition::Streams, within);
    const double fastest = std::min(out.fastest, recut->stepTime);
    if (recut->stepIsBound) {
        // The new cut cannot win: neither can the first one when it is bounded too.
        out.fastest = fastest;
        return out;
    }
    // Taken when it is faster, or fits where the first cut does not. A cut that only overflows less
    // but runs slower is not: the combination's bounds (searchBounds_, sweeps) read its time.
    const Score score{recut->stepTime, recut->peakMemory, recut->feasible};
    if (out.bounded || (preferred(score, out.score) && (score.feasible || score.stepTime <= out.score.stepTime)))
        out = Scored{score, plan.pipeline, fastest, false};
    out.fastest = fastest;
    return out;
}

MeshSearch::Scored MeshSearch::scoreOf(const Combo& c, const std::vector<int>& choice) const {
    if (c.layout.active())
        return scoreCut(c, planOf(c, choice, c.layout), true);
    const SearchProblem& p = *c.problem;
    // With overlap the streams compose across ops: the evaluation's step, not the tables' sum.
    const double time = c.settings.overlap ? scorePlan(*c.model, planOf(c, choice, c.layout), c.graph->folded()).stepTime
                                           : p.stepTime(choice);
    Scored out{Score{}, c.layout, time};
    out.score.stepTime = out.fastest;
    out.score.peakMemory = p.peakMemory(choice);
    out.score.feasible = out.score.peakMemory <= capacity_;
    return out;
}

void MeshSearch::considerChoice(const Combo& c, const std::vector<int>& choice, const Scored& scored) {
    const Score& score = scored.score;
    if (score.feasible)
        recordFit(score.stepTime);
    if (best_ && !preferred(score, best_->score))
        return; // the plan itself is built only when it is the best so far
    CandidatePlan out;
    out.plan = planOf(c, choice, scored.layout);
    out.score = score;
    out.graph = c.graph;
    out.solver = c.solver;
    best_ = std::move(out);
}

void MeshSearch::recordBounded(const Scored& scored) {
    ++bounded_;
    double& least = scored.score.feasible ? boundedStep_ : boundedOverflowStep_;
    least = std::min(least, scored.fastest);
}

void MeshSearch::recordFit(double stepTime) {
    bound_.fits(stepTime);
    ownBestFeasible_ = std::min(ownBestFeasible_, stepTime);
}

bool MeshSearch::dominated(const StepSettings& s, const std::vector<std::pair<StepSettings, double>>& bounds) const {
    // Pipelined, more micro-batches shrink the bubble: a step takes m + (P - 1) / V micro-batch slots.
    // When M micro-batches' work is no cheaper than m's (as without a pipe axis), M's step is at least
    // (1 + (P - 1) / (V M)) / (1 + (P - 1) / (V m)) of m's; without a pipe axis the ratio is 1.
    const double P = mesh_.pipelineStages();
    const double V = s.schedule == Schedule::Interleaved ? s.virtualStages : 1;
    auto slots = [&](int microbatches) { return 1 + (P - 1) / (V * microbatches); };
    for (const auto& [a, time] : bounds) {
        if (!slowerOrEqual(a, s) || a.schedule != s.schedule || a.virtualStages != s.virtualStages)
            continue;
        const double least = time * slots(s.microbatches) / slots(a.microbatches);
        if (least >= ownBestFeasible_ || bound_.cannotWin(least))
            return true;
    }
    return false;
}

const MeshSearch::Combo* MeshSearch::withTables(int microbatches, Recompute recompute, int zeroStage) const {
    const auto it = combos_.find(std::make_tuple(microbatches, int(recompute), zeroStage));
    if (it == combos_.end() || !it->second->problem || it->second->problem->cancelled())
        return nullptr;
    return it->second.get();
}

bool MeshSearch::worseZeroStage(Combo& c) {
    const SettingsSpace& sp = in_.space;
    const StepSettings& s = c.settings;
    for (int z : sp.zeroStages) {
        if (z == s.zeroStage || (z > 0 && in_.zeroAxes == 0))
            continue;
        // Only stages whose tables exist already: building them just to compare costs more than the
        // solves it spares.
        const Combo* built = withTables(s.microbatches, s.recompute, z);
        if (!built)
            continue;
        const SearchProblem& q = *built->problem;
        // Identical tables: keep the lower stage (the simpler configuration).
        if (problemOf(c).noBetterThan(q) && (z < s.zeroStage || !q.noBetterThan(problemOf(c))))
            return true;
    }
    return false;
}

bool MeshSearch::worseRecomputation(Combo& c) {
    const StepSettings& s = c.settings;
    const std::size_t ops = c.graph->graph->ops().size();
    for (Recompute r : in_.space.recomputes) {
        if (int(r) >= int(s.recompute))
            continue;
        const Combo* built = withTables(s.microbatches, r, s.zeroStage);
        if (!built)
            continue;
        const Combo& q = *built;
        bool samePasses = true;
        for (std::size_t v = 0; v < ops && samePasses; ++v)
            samePasses = c.model->forwardPasses(OpId(v)) == q.model->forwardPasses(OpId(v));
        if (samePasses && problemOf(c).noBetterThan(*q.problem))
            return true;
    }
    return false;
}

void MeshSearch::explore() {
    const SettingsSpace& sp = in_.space;
    // A previous search's bounds still hold: they prune here as this search's own do.
    searchBounds_.insert(searchBounds_.end(), in_.previousBounds.begin(), in_.previousBounds.end());
    const double total = double(sp.size());
    double done = 0;
    int noFit = 0;
    for (int m : sp.microbatches) {
        for (Recompute r : sp.recomputes) {
            for (int z : sp.zeroStages) {
                progress(0.1 + 0.6 * done++ / total);
                if (in_.stop.stop_requested()) {
                    cancelled_ = true;
                    return;
                }
                if (z > 0 && in_.zeroAxes == 0)
                    continue;
                const StepSettings s = sp.at(z, r, m, in_.zeroAxes);
                if (dominated(s, searchBounds_)) {
                    ++pruned_;
                    continue;
                }
                Combo& c = combo(s);
                SearchProblem& p = problemOf(c);
                if (p.cancelled()) {
                    cancelled_ = true;
                    return;
                }
                if (worseZeroStage(c) || worseRecomputation(c)) {
                    ++pruned_;
                    continue;
                }
                double lower = p.minStepTime();
                // Tighter: a solved combination with the same micro-batches and no more recomputation
                // has edges no dearer, so its optimum plus the least per-op increase bounds this one.
                for (const auto& [key, other] : combos_)
                    if (other.get() != &c && other->problem && other->unconstrained > 0 &&
                        other->settings.microbatches == m && int(other->settings.recompute) <= int(r))
                        lower = std::max(lower, other->unconstrained + p.minIncrease(*other->problem, 0));
                if (lower >= ownBestFeasible_ || bound_.cannotWin(lower)) {
                    searchBounds_.emplace_back(s, lower); // no choice here (or slower settings) beats what fits
                    ++pruned_;
                    continue;
                }
                // No choice of a combination fits when even its smallest candidates overflow.
                if (p.minPeakMemory() > capacity_) {
                    ++noFit; // no choice of this combination fits; more memory-saving ones may
                    ++pruned_;
                    continue;
                }
                // What fits here may be slower still: the op tables' dual bound under the memory
                // constraint. It bounds this combination only (more memory-saving settings may fit
                // where these do not), so it is not a search bound for the settings after it.
                c.fittingBound = std::max(lower, p.fittingLowerBound(capacity_));
                if (cannotWin(c.fittingBound)) {
                    ++memoryBounded_;
                    ++pruned_;
                    continue;
                }
                const Solution sol = solve(p, c, 0);
                if (!sol.complete)
                    return;
                ++solved_;
                const Scored scored = scoreOf(c, sol.choice);
                const Score& score = scored.score;
                // Bounds read the choice's time on its fastest cut, whether that fits or not: a
                // setting that saves memory may fit on a faster cut than this one needs.
                c.unconstrained = scored.fastest;
                c.unconstrainedMemory = p.memoryOf(sol.choice);
                searchBounds_.emplace_back(s, scored.fastest);
                const bool mightWin = (!score.feasible || scored.fastest < score.stepTime) &&
                                      p.minPeakMemory() <= capacity_ && !bound_.cannotWin(scored.fastest) &&
                                      scored.fastest < ownBestFeasible_;
                considerChoice(c, sol.choice, scored);
                if (mightWin)
                    pending_.push_back(s);
            }
            // Pair tables of this group are no longer needed unless pending; op tables stay for bounds.
            for (auto& [key, c] : combos_)
                if (c->problem && std::find(pending_.begin(), pending_.end(), c->settings) == pending_.end())
                    c->problem->dropEdges();
        }
        // A new micro-batch count has other candidates: the op tables of this one bound nothing there.
        edgeParts_.reset();
        for (auto& [key, c] : combos_)
            if (c->problem && std::find(pending_.begin(), pending_.end(), c->settings) == pending_.end())
                c->problem.reset();
    }
    if (memoryBounded_ > 0)
        notes_.push_back(std::to_string(memoryBounded_) + " settings combinations ruled out by the memory-weighted bound "
                                                          "of their op tables");
    if (noFit > 0)
        notes_.push_back(std::to_string(noFit) + " settings combinations skipped: no choice of strategies fits their "
                                                 "memory");
    progress(0.7);
}

void MeshSearch::sweep(Combo& c, double scale, bool toTheEnd) {
    // A Lagrangian weight on memory (seconds per byte). Every weight's optimum is a vertex of the lower
    // convex hull of (memory, step time) over all choices. Start from the unconstrained optimum A (does
    // not fit); raise the weight 16x at a time until a vertex B fits; then walk the hull between them:
    // the weight (T_B - T_A) / (M_A - M_B) finds the vertex furthest below the segment AB, which
    // replaces A or B by whether it fits, until no vertex lies below (B is then the fastest vertex that
    // fits). Worked example: A = (90 GB, 10 s), B = (60 GB, 13 s), capacity 80 GB: weight 0.1 s/GB;
    // a vertex (75 GB, 11 s) has 18.5 < 19 and fits, so it becomes B. The walk stops early once A is
    // already slower than a plan that fits (every vertex between is slower than A).
    SearchProblem& p = problemOf(c);
    struct Vertex {
        double time = 0, memory = 0;
        bool fits = false;
    };
    int solves = 0;
    // Every exact solve also bounds what fits (weak duality): a choice x that fits has additive
    // memory M(x) <= capacity, so T(x) >= T(x) + lambda (M(x) - capacity) >= L(lambda), the weighted
    // optimum minus lambda x capacity. Once L reaches the best plan that fits, the walk can stop.
    bool ruledOut = false;
    auto at = [&](double lambda) -> std::optional<Vertex> {
        const Solution s = solve(p, c, lambda);
        ++solves;
        if (!s.complete)
            return std::nullopt;
        if (c.solver != SearchAlgorithm::Local) {
            const double dual = s.objective - lambda * capacity_;
            c.duals.emplace_back(lambda, dual);
            ruledOut = cannotWin(dual);
        }
        const Scored scored = scoreOf(c, s.choice);
        considerChoice(c, s.choice, scored);
        return Vertex{scored.score.stepTime, p.memoryOf(s.choice), scored.score.feasible};
    };
    auto slower = [&](double time) { return cannotWin(time); };
    Vertex a{c.unconstrained, c.unconstrainedMemory, false};
    std::optional<Vertex> b;
    for (double lambda = scale * 16; lambda < scale * 1e10 && !cancelled_; lambda *= 16) {
        const std::optional<Vertex> v = at(lambda);
        if (!v)
            break;
        if (v->fits) {
            b = v;
            break;
        }
        a = *v;
        if ((slower(v->time) || ruledOut) && !toTheEnd)
            break;
    }
    for (int i = 0; i < 12 && b && !cancelled_ && !slower(a.time) && !(ruledOut && !toTheEnd) && a.memory > b->memory;
         ++i) {
        const double lambda = (b->time - a.time) / (a.memory - b->memory);
        const std::optional<Vertex> v = at(lambda);
        if (!v)
            break;
        const double line = b->time + lambda * b->memory;
        if (v->time + lambda * v->memory >= line - 1e-9 * std::abs(line))
            break; // no vertex below AB: B is the fastest that fits on the hull
        (v->fits ? *b : a) = *v;
    }
    ++sweeps_;
    solved_ += solves;
    // What this sweep proves about the plans of `c` that fit: at least its best dual bound, and at
    // least its unconstrained optimum.
    double best = std::max(c.unconstrained, c.fittingBound);
    for (const auto& [lambda, dual] : c.duals)
        best = std::max(best, dual);
    sweptBound_ = std::min(sweptBound_, best);
}

std::optional<std::vector<std::pair<StepSettings, double>>> MeshSearch::searchBounds() const {
    if (inexact_ || cancelled_)
        return std::nullopt;
    return searchBounds_;
}

std::optional<double> MeshSearch::fittingLowerBound() const {
    // Pipelined, the tables' memory estimates the first stage's: no bound to claim.
    if (inexact_ || cancelled_ || mesh_.pipelineStages() > 1)
        return std::nullopt;
    return sweptBound_;
}

bool MeshSearch::cannotWin(double time) const { return time >= ownBestFeasible_ || bound_.cannotWin(time); }

bool MeshSearch::dualBoundRulesOut(Combo& c) {
    const SearchProblem& p = problemOf(c);
    for (const auto& [key, other] : combos_)
        if (other.get() != &c && other->problem && !other->duals.empty() &&
            other->settings.microbatches == c.settings.microbatches && other->settings.recompute == c.settings.recompute)
            for (const auto& [lambda, dual] : other->duals)
                if (cannotWin(dual + p.minIncrease(*other->problem, lambda)))
                    return true;
    return false;
}

void MeshSearch::fitMemory() {
    // Fastest groups (same micro-batches and recomputation, so the same edges) first; within one, the
    // ZeRO stages that save the most memory first, since their dual bounds carry over to the others
    // (more memory per choice only raises the weighted objective; dualBoundRulesOut()).
    std::map<std::pair<int, int>, double> groupFastest;
    for (const StepSettings& s : pending_) {
        const auto g = std::make_pair(s.microbatches, int(s.recompute));
        const auto it = groupFastest.find(g);
        groupFastest[g] = it == groupFastest.end() ? combo(s).unconstrained : std::min(it->second, combo(s).unconstrained);
    }
    std::sort(pending_.begin(), pending_.end(), [&](const StepSettings& a, const StepSettings& b) {
        const double ga = groupFastest[{a.microbatches, int(a.recompute)}];
        const double gb = groupFastest[{b.microbatches, int(b.recompute)}];
        if (ga != gb)
            return ga < gb;
        if (a.microbatches != b.microbatches || a.recompute != b.recompute)
            return std::make_pair(a.microbatches, int(a.recompute)) < std::make_pair(b.microbatches, int(b.recompute));
        return a.zeroStage > b.zeroStage;
    });
    for (std::size_t i = 0; i < pending_.size() && !cancelled_; ++i) {
        progress(0.7 + 0.3 * double(i) / double(pending_.size()));
        if (in_.stop.stop_requested()) {
            cancelled_ = true;
            break;
        }
        Combo& c = combo(pending_[i]);
        if (cannotWin(c.unconstrained) || cannotWin(c.fittingBound))
            continue; // something that fits is already faster than this combination can be
        if (dualBoundRulesOut(c)) {
            ++pruned_;
            ++dualPruned_;
            continue;
        }
        sweep(c, c.unconstrained / capacity_, false);
        c.problem->dropEdges(); // the op tables stay: dualBoundRulesOut() reads them
    }
    if (dualPruned_ > 0)
        notes_.push_back("memory: " + std::to_string(dualPruned_) + " sweeps spared by the dual bounds of other ZeRO "
                         "stages");
    for (auto& [key, c] : combos_)
        c->problem.reset();
    if (sweeps_ > 0)
        notes_.push_back("memory: " + std::to_string(sweeps_) + " memory-weight sweeps where the unconstrained plan "
                         "did not fit but could have won");
    pending_.clear();
    progress(1.0);
}

void MeshSearch::closestToFitting() {
    const SettingsSpace& sp = in_.space;
    const int z = in_.zeroAxes ? sp.zeroStages.back() : 0;
    Combo& c = combo(sp.at(z, sp.recomputes.back(), sp.microbatches.back(), in_.zeroAxes));
    SearchProblem& p = problemOf(c);
    if (p.cancelled()) {
        cancelled_ = true;
        return;
    }
    const Solution s = solve(p, c, 0);
    if (!s.complete)
        return;
    const Scored scored = scoreOf(c, s.choice);
    c.unconstrained = scored.fastest;
    c.unconstrainedMemory = p.memoryOf(s.choice);
    const double scale = scored.score.stepTime / capacity_;
    const bool fits = scored.score.feasible;
    considerChoice(c, s.choice, scored);
    if (!fits)
        sweep(c, scale, true);
    c.problem.reset();
}

} // namespace shardscope
