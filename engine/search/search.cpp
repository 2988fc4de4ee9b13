#include "engine/search/search.h"

#include "engine/cost/cost_model.h"
#include "engine/plans/baselines.h"
#include "engine/search/finalists.h"
#include "engine/search/folded_run.h"
#include "engine/search/fit_advice.h"
#include "engine/search/mesh_equivalence.h"
#include "engine/search/mesh_search.h"
#include "engine/search/pipeline_candidates.h"
#include "engine/util/error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace shardscope {

namespace {

using Clock = std::chrono::steady_clock;

/// Per op, what the search must keep: a lock pins every axis, a tactic's pin some.
std::vector<std::optional<StrategyPin>> pinsOf(const SearchRequest& r) {
    std::vector<std::optional<StrategyPin>> pins = r.pins;
    pins.resize(std::max(r.pins.size(), r.locks.size()));
    for (std::size_t v = 0; v < r.locks.size(); ++v)
        if (r.locks[v])
            pins[v] = StrategyPin::of(*r.locks[v]);
    return pins;
}

/// Runs `work(order[k])` for every k on `threads` threads, in that order as far as threads allow.
void onPool(const std::vector<std::size_t>& order, int threads, const std::function<void(std::size_t)>& work) {
    const std::size_t n = order.size();
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t k = next++; k < n; k = next++)
            work(order[k]);
    };
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t count = std::min<std::size_t>(n, threads > 0 ? std::size_t(threads) : hw);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < count; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
}

/// The chosen plan's optimality gap (SearchReport::optimalityGap): its step time against the least
/// lower bound of the searched meshes; nothing when it does not fit or a bound is missing.
std::optional<double> optimalityGap(const std::vector<std::unique_ptr<MeshSearch>>& searches,
                                    const std::vector<std::string>& errors,
                                    const std::vector<std::optional<std::size_t>>& sameAs,
                                    const std::optional<Score>& chosen, bool cancelled) {
    if (!chosen || !chosen->feasible || cancelled)
        return std::nullopt;
    double lower = chosen->stepTime;
    for (std::size_t i = 0; i < searches.size(); ++i) {
        if (!errors[i].empty() || sameAs[i])
            continue; // no plan there, or searched as its twin
        const std::optional<double> b = searches[i]->fittingLowerBound();
        if (!b)
            return std::nullopt;
        lower = std::min(lower, *b);
    }
    return std::max(0.0, (chosen->stepTime - lower) / chosen->stepTime);
}

/// "0.012%".
std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g%%", 100 * fraction);
    return text;
}

/// "ZeRO 1, selective recomputation, 16 micro-batches".
std::string describeSettings(const StepSettings& s) {
    return "ZeRO " + std::to_string(s.zeroStage) + ", " + std::string(recomputeName(s.recompute)) +
           " recomputation, " + std::to_string(s.microbatches) + " micro-batch" + (s.microbatches == 1 ? "" : "es");
}

} // namespace

std::string SearchReport::chosenBy() const {
    return baseline ? "baseline " + *baseline : std::string(algorithmName(solver));
}

std::vector<Mesh> candidateMeshes(int devices, int perNode) {
    // Minor axes stay inside a scale-up domain: the model axis (and a third, seq, axis) divide its size,
    // up to kMaxSearchedScaleUp devices.
    const int reach = std::min(perNode, kMaxSearchedScaleUp);
    std::vector<Mesh> meshes{Mesh{{MeshAxis::of(AxisRole::Data, devices)}}};
    for (int m = 2; m <= reach && m <= devices; m *= 2)
        if (perNode % m == 0 && devices % m == 0)
            meshes.push_back(Mesh{{MeshAxis::of(AxisRole::Data, devices / m), MeshAxis::of(AxisRole::Model, m)}});
    for (int inner = 4; inner <= reach && inner <= devices; inner *= 2)
        for (int q = 2; q < inner; q *= 2)
            if (perNode % inner == 0 && devices % inner == 0 && devices / inner > 1)
                meshes.push_back(Mesh{{MeshAxis::of(AxisRole::Data, devices / inner), MeshAxis::of(AxisRole::Sequence, q),
                                       MeshAxis::of(AxisRole::Model, inner / q)}});
    return meshes;
}

std::vector<Mesh> expertMeshes(const Graph& graph, int devices) {
    int experts = 0;
    for (const Op& op : graph.ops())
        if (const int f = op.hints.expert.empty() ? -1 : op.rule.findFactor(op.hints.expert); f >= 0)
            experts = std::max<int>(experts, int(op.rule.factors[std::size_t(f)].size));
    std::vector<Mesh> meshes;
    for (int e = 2; e <= std::min(experts, kMaxSearchedExpertDegree) && devices / e >= 2; e *= 2)
        if (experts % e == 0 && devices % e == 0)
            meshes.push_back(Mesh{{MeshAxis::of(AxisRole::Data, devices / e), MeshAxis::of(AxisRole::Expert, e)}});
    return meshes;
}

std::shared_ptr<const SearchResult> search(const SearchRequest& r) {
    if (!r.graph || !r.cluster)
        throw InputError("search: no model or cluster");
    if (const std::string e = precisionSupportError(r.cluster->device, r.settings.precision); !e.empty())
        throw InputError("search: " + e);
    const auto start = Clock::now();
    const int devices = r.cluster->deviceCount();
    const auto repeated = findLayers(*r.graph);
    const int blocks = repeated ? repeated->count() : 0;
    std::vector<Mesh> meshes = r.mesh ? std::vector<Mesh>{*r.mesh} : candidateMeshes(devices, r.cluster->scaleUpSize());
    if (!r.mesh)
        for (Mesh& m : expertMeshes(*r.graph, devices))
            meshes.push_back(std::move(m));
    if (!r.mesh)
        for (Mesh& m : pipelinedMeshes(devices, r.cluster->devicesPerNode(), blocks))
            meshes.push_back(std::move(m));
    for (const Mesh& m : meshes)
        m.verify(devices, r.cluster->name);
    for (const Mesh& m : meshes)
        for (std::size_t v = 0; v < r.locks.size(); ++v)
            if (r.locks[v] && r.locks[v]->factorOfAxis.size() != m.rank())
                throw InputError("lock on op '" + r.graph->ops()[v].name + "' is for a mesh of " +
                                 std::to_string(r.locks[v]->factorOfAxis.size()) + " axes, not " + m.toString());
    for (std::size_t v = 0; v < r.pins.size(); ++v)
        if (r.pins[v] && (!r.mesh || r.pins[v]->factorOfAxis.size() != r.mesh->rank()))
            throw InputError("search: the fixed axes of op '" + r.graph->ops()[v].name + "' need the mesh they were "
                             "fixed on");
    if (!r.stageCut.empty() || !r.blockStages.empty()) {
        if (!r.mesh || r.mesh->pipelineStages() <= 1)
            throw InputError("search: a fixed stage cut or locked stages need a fixed mesh with a pipe axis");
        if (!r.stageCut.empty() && r.stageCut.size() % std::size_t(r.mesh->pipelineStages()) != 0)
            throw InputError("search: a cut of " + std::to_string(r.stageCut.size()) + " model chunks does not deal into " +
                             std::to_string(r.mesh->pipelineStages()) + " stages");
        if (!r.blockStages.empty() && int(r.blockStages.size()) != blocks)
            throw InputError("search: locked stages for " + std::to_string(r.blockStages.size()) + " blocks, the model has " +
                             std::to_string(blocks));
    }
    const auto pins = pinsOf(r);
    // Repeated layers, folded; where locks or pins make some blocks differ, the longest run that
    // folding keeps exact (folded_run.h).
    const bool fold = r.algorithm == SearchAlgorithm::Auto || r.algorithm == SearchAlgorithm::Tapas;
    GraphCache graphs(r.graph, r.settings.microbatches,
                      r.family, [&](const RepeatedBlocks& layers) -> std::optional<RepeatedBlocks> {
                          if (!fold)
                              return std::nullopt;
                          return foldedRun(layers, pins);
                      });
    OpenSettings open = r.open;
    if (!r.family)
        open.microbatches = false; // a model that fixes its own batch keeps its micro-batch count

    // Each pipelined mesh is searched once per schedule it may run; a fixed cut fixes the virtual
    // stages (its chunks over the stages), and more than one makes the schedule interleaved.
    auto schedulesFor = [&](const Mesh& m) {
        std::vector<ScheduleChoice> choices = scheduleChoices(m, r.settings, open.schedule, blocks, r.mesh.has_value());
        if (r.stageCut.empty())
            return choices;
        const int V = int(r.stageCut.size()) / m.pipelineStages();
        if (V > 1)
            return std::vector<ScheduleChoice>{{Schedule::Interleaved, V}};
        std::erase_if(choices, [](const ScheduleChoice& c) { return c.virtualStages != 1; });
        return choices;
    };
    std::vector<StepSettings> bases;
    {
        std::vector<Mesh> targets;
        for (const Mesh& m : meshes)
            for (const ScheduleChoice& c : schedulesFor(m)) {
                targets.push_back(m);
                bases.push_back(r.settings);
                bases.back().schedule = c.schedule;
                bases.back().virtualStages = c.virtualStages;
            }
        if (targets.empty())
            throw InputError("search: the fixed cut of " + std::to_string(r.stageCut.size()) + " model chunks contradicts "
                             "the schedule (--schedule interleaved needs more chunks than stages)");
        meshes = std::move(targets);
    }

    SharedBound bound;
    std::mutex progressMutex;
    std::vector<double> done(meshes.size(), 0.0);
    auto report = [&](std::size_t i, double f) {
        std::lock_guard lock(progressMutex);
        done[i] = f;
        if (!r.progress)
            return;
        double sum = 0;
        for (double d : done)
            sum += d;
        r.progress(SearchProgress{sum / double(meshes.size()), bound.bestFeasible()});
    };
    std::vector<std::unique_ptr<MeshSearch>> searches(meshes.size());
    std::vector<std::string> errors(meshes.size());
    std::vector<AxisSet> zeroAxes(meshes.size());
    for (std::size_t i = 0; i < meshes.size(); ++i) {
        zeroAxes[i] = r.settings.zeroAxes ? r.settings.zeroAxes : meshes[i].dataParallelAxes();
    }
    // A mesh that prices every plan as an earlier one does (axes reordered) gets only its floor:
    // its search would find the earlier one's optimum. Pins name axes by index, so not with pins.
    const bool anyPin = std::any_of(pins.begin(), pins.end(), [](const auto& p) { return p.has_value(); });
    std::vector<std::optional<std::size_t>> sameAs(meshes.size());
    for (std::size_t i = 1; i < meshes.size() && !anyPin; ++i)
        for (std::size_t j = 0; j < i && !sameAs[i]; ++j)
            if (!sameAs[j] && meshes[i].pipelineStages() == 1 && meshes[j].pipelineStages() == 1 &&
                equivalentAxes(*r.cluster, meshes[j], zeroAxes[j], meshes[i], zeroAxes[i]))
                sameAs[i] = j;
    // A previous search of the same problem with fewer constraints proved bounds that still hold.
    const bool incremental = r.previous && r.previous->carriesOver(r.graph, r.cluster, r.settings, pins, r.stageCut,
                                                                   r.blockStages);
    for (std::size_t i = 0; i < meshes.size(); ++i) {
        MeshSearchInput in;
        in.cluster = r.cluster;
        in.graphs = &graphs;
        const int dataDegree = meshes[i].dataParallelDegree();
        in.space = settingsSpace(bases[i], open, r.family ? std::optional<int>(r.family->globalBatch) : std::nullopt,
                                 dataDegree);
        if (meshes[i].pipelineStages() > 1 && open.microbatches && r.family) {
            // Pipelined, more micro-batches shrink the bubble while the per-op choices hardly change:
            // micro-batches of 1, 2, 4 or 8 sequences, as Megatron-LM runs them.
            const int perReplica = r.family->globalBatch / dataDegree;
            std::erase_if(in.space.microbatches, [perReplica](int m) {
                const int size = perReplica / m;
                return size != 1 && size != 2 && size != 4 && size != 8;
            });
        }
        if (bases[i].schedule == Schedule::Interleaved) {
            // The interleaved schedule runs micro-batches in groups of P.
            const int P = meshes[i].pipelineStages();
            std::erase_if(in.space.microbatches, [P](int m) { return m % P != 0; });
            if (in.space.microbatches.empty())
                errors[i] = "interleaved: no micro-batch count is a multiple of the " + std::to_string(P) + " stages";
        }
        in.zeroAxes = zeroAxes[i];
        in.pins = pins;
        in.locks = r.locks;
        in.stageCut = r.stageCut;
        in.blockStages = r.blockStages;
        in.algorithm = r.algorithm;
        if (incremental)
            if (const auto it = r.previous->bounds.find(meshKey(meshes[i], bases[i])); it != r.previous->bounds.end())
                in.previousBounds = it->second;
        if (r.start && r.start->mesh == meshes[i] && r.start->settings.schedule == bases[i].schedule &&
            r.start->settings.virtualStages == bases[i].virtualStages)
            in.start = &*r.start;
        in.stop = r.stop;
        in.progress = [&report, i](double f) { report(i, f); };
        searches[i] = std::make_unique<MeshSearch>(meshes[i], std::move(in), bound);
    }
    // The most model-parallel meshes first (they tend to fit, which lets the others prune); the floor
    // prices the meshes without a pipe axis first: their baselines cost no schedule to compose and bound
    // the pipelined ones, whose schedules are then composed only where they could win.
    std::vector<std::size_t> order(meshes.size()), floorOrder;
    for (std::size_t k = 0; k < meshes.size(); ++k)
        order[k] = meshes.size() - 1 - k;
    for (bool pipelined : {false, true})
        for (std::size_t i : order)
            if ((meshes[i].pipelineStages() > 1) == pipelined)
                floorOrder.push_back(i);
    auto pass = [&](void (MeshSearch::*step)()) {
        onPool(step == &MeshSearch::floor ? floorOrder : order, r.threads, [&](std::size_t i) {
            if (!errors[i].empty() || (sameAs[i] && step != &MeshSearch::floor))
                return;
            try {
                (searches[i].get()->*step)();
            } catch (const InputError& e) {
                errors[i] = e.what();
            }
        });
    };
    pass(&MeshSearch::floor);
    // The meshes whose best baselines are fastest first: the best plan tends to be found there, and
    // the others' combinations then meet a lower cutoff.
    auto floorStep = [&](std::size_t i) {
        const auto& b = searches[i]->best();
        return errors[i].empty() && b && b->score.feasible ? b->score.stepTime : std::numeric_limits<double>::infinity();
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return floorStep(a) < floorStep(b); });
    pass(&MeshSearch::explore);
    pass(&MeshSearch::fitMemory);
    if (bound.bestFeasible() == std::numeric_limits<double>::infinity() && !r.stop.stop_requested())
        pass(&MeshSearch::closestToFitting);

    auto result = std::make_shared<SearchResult>();
    SearchReport& rep = result->report;
    rep.incremental = incremental;
    if (!r.stop.stop_requested()) {
        // What this search proved, for a re-search after an edit; meshes searched as their twins
        // (sameAs) and those whose solves were not exact carry nothing.
        auto memory = std::make_shared<SearchMemory>();
        memory->graphs = graphs.graphs();
        memory->cluster = r.cluster;
        memory->settings = r.settings;
        memory->pins = pins;
        memory->stageCut = r.stageCut;
        memory->blockStages = r.blockStages;
        for (std::size_t i = 0; i < meshes.size(); ++i)
            if (errors[i].empty() && !sameAs[i])
                if (auto b = searches[i]->searchBounds())
                    memory->bounds[meshKey(meshes[i], bases[i])] = std::move(*b);
        result->memory = std::move(memory);
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < meshes.size(); ++i) {
        if (!errors[i].empty()) {
            if (meshes.size() == 1)
                throw InputError(errors[i]);
            rep.notes.push_back(meshes[i].toString() + ": " + errors[i]);
            continue;
        }
        const MeshSearch& s = *searches[i];
        rep.statesExplored += s.statesExplored();
        rep.solveSeconds += s.solveSeconds();
        rep.combinationsSolved += s.solved();
        rep.combinationsPruned += s.pruned();
        rep.cancelled = rep.cancelled || s.cancelled();
        if (s.foldedBlocks() > 0) {
            rep.foldedBlocks = s.foldedBlocks();
            rep.opsPerBlock = s.opsPerBlock();
        }
        for (const std::string& n : s.notes())
            rep.notes.push_back(meshes.size() > 1 ? meshes[i].toString() + ": " + n : n);
        if (sameAs[i]) {
            rep.notes.push_back(meshes[i].toString() + ": prices every plan as " + meshes[*sameAs[i]].toString() +
                                " does with its axes reordered; searched there");
            if (const auto& twin = searches[*sameAs[i]]->best(); twin && (!s.best() || preferred(twin->score, s.best()->score)))
                rep.meshesTried.push_back({meshes[i], twin->score.stepTime, twin->score.feasible, {}});
            else if (s.best())
                rep.meshesTried.push_back({meshes[i], s.best()->score.stepTime, s.best()->score.feasible, {}});
            if (s.best() && (!best || preferred(s.best()->score, searches[*best]->best()->score)))
                best = i;
            continue;
        }
        rep.plansBounded += s.bounded();
        const std::string schedule = meshes[i].pipelineStages() > 1 ? scheduleLabel(bases[i]) : std::string();
        const bool boundedFits = s.boundedStep() < std::numeric_limits<double>::infinity();
        if (boundedFits && (!s.best() || !s.best()->score.feasible || s.boundedStep() < s.best()->score.stepTime))
            rep.meshesTried.push_back({meshes[i], s.boundedStep(), true, schedule, true});
        else if (s.best())
            rep.meshesTried.push_back({meshes[i], s.best()->score.stepTime, s.best()->score.feasible, schedule});
        else if (s.boundedOverflowStep() < std::numeric_limits<double>::infinity())
            rep.meshesTried.push_back({meshes[i], s.boundedOverflowStep(), false, schedule, true});
        if (!s.best())
            continue;
        if (!best || preferred(s.best()->score, searches[*best]->best()->score))
            best = i;
    }
    CandidatePlan chosen;
    std::shared_ptr<const SimResult> simulated;
    if (best) {
        // The finalists (each searched mesh's best) by their simulated step.
        std::vector<const CandidatePlan*> finalists;
        const CandidatePlan* baseline = nullptr; // the best named baseline over every mesh
        for (std::size_t i = 0; i < meshes.size(); ++i)
            if (errors[i].empty() && !sameAs[i] && searches[i]->best()) {
                finalists.push_back(&*searches[i]->best());
                const auto& b = searches[i]->bestBaseline();
                if (b && (!baseline || preferred(b->score, baseline->score)))
                    baseline = &*b;
            }
        const auto started = Clock::now();
        const auto fastest = fastestSimulated(finalists, baseline, r.cluster, r.stop);
        rep.simulationSeconds = std::chrono::duration<double>(Clock::now() - started).count();
        chosen = fastest ? *fastest->plan : *searches[*best]->best();
        if (fastest) {
            simulated = fastest->simulation;
            rep.finalistsSimulated = fastest->simulated;
        }
    } else if (r.stop.stop_requested()) {
        // Stopped before any mesh had a plan: the data-parallel baseline on the first mesh.
        chosen.plan = baselinePlan(*r.graph, meshes.front(), "dp", r.settings);
        chosen.plan.settings = r.settings;
        chosen.graph = graphs.get(r.settings.microbatches);
        chosen.baseline = "dp";
        rep.cancelled = true;
    } else {
        throw InputError("search: no mesh could be searched");
    }
    if (r.algorithm == SearchAlgorithm::Tapas && !chosen.graph->blocks)
        rep.notes.push_back(chosen.graph->layers ? "no two neighbouring blocks alike under the locks and pins: solved unfolded"
                                                 : "no repeated blocks found: solved unfolded");
    result->plan = std::move(chosen.plan);
    result->plan.name = "search";
    result->plan.pipeline.locked = !r.stageCut.empty();
    rep.solver = chosen.solver;
    rep.baseline = chosen.baseline;
    if (!chosen.baseline) {
        // Say what chose each axis: the search, or the lock or pin it kept.
        result->plan.origin = "chosen by the search (" + std::string(algorithmName(chosen.solver)) + ")";
        for (std::size_t o = 0; o < pins.size() && o < result->plan.ops.size(); ++o) {
            OpChoice& choice = result->plan.ops[o];
            choice.why.assign(pins[o] ? result->plan.mesh.rank() : 0, Provenance{});
            for (std::size_t a = 0; a < choice.why.size(); ++a)
                if (o < r.locks.size() && r.locks[o])
                    choice.why[a].source = Provenance::Source::Locked;
                else if (pins[o]->factorOfAxis[a])
                    choice.why[a].source = Provenance::Source::Pinned;
        }
    }
    if (open.zeroStage || open.recompute || open.microbatches || (open.schedule && result->plan.pipeline.active()))
        rep.notes.insert(rep.notes.begin(), "settings chosen: " + describeSettings(result->plan.settings));
    rep.optimalityGap = optimalityGap(searches, errors, sameAs, best ? std::optional<Score>(chosen.score) : std::nullopt,
                                      rep.cancelled);
    if (rep.optimalityGap && *rep.optimalityGap > 0)
        rep.notes.push_back("memory: the plan is at most " + percent(*rep.optimalityGap) +
                            " slower than the fastest plan that fits (Lagrangian dual bound)");
    rep.history = bound.history();
    // The graph of the chosen micro-batch count, owned by the result.
    result->graph = chosen.graph->graph;
    rep.searchSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    // The chosen plan's full breakdown, timed apart: it is the result's presentation, not the search.
    const auto evaluated = Clock::now();
    result->model = std::make_shared<const CostModel>(chosen.graph->facts, r.cluster, result->plan.mesh, result->plan.settings,
                                                      CommModel(*r.cluster, result->plan.mesh));
    result->evaluation = evaluate(*result->model, result->plan);
    result->simulation = std::move(simulated);
    rep.evaluationSeconds = std::chrono::duration<double>(Clock::now() - evaluated).count();
    if (!result->evaluation->feasible && !rep.cancelled)
        rep.fitAdvice = fitAdvice(r, open, graphs);
    return result;
}

} // namespace shardscope
