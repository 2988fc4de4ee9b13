#include "search_service.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/search/stage_cuts.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

namespace shardscope::ui {

namespace {

/// A search's plan on its problem, with the result that made it.
struct SearchOutcome {
    PlanState state;
    std::shared_ptr<const SearchResult> result;
};

} // namespace

SearchService::SearchService(Session& session) : session_(session) {}

void SearchService::forget() {
    last_.reset();
    searched_ = PlanState{};
}

void SearchService::run(bool aroundLocks) {
    if (!session_.loaded())
        return;
    const SearchSettings settings = session_.searchSettings();
    const PlanState current = session_.state();
    std::vector<std::optional<OpStrategy>> locks(current.plan.ops.size());
    bool anyLock = false;
    for (std::size_t i = 0; i < locks.size(); ++i)
        if (current.plan.ops[i].locked) {
            locks[i] = current.plan.ops[i].strategy;
            anyLock = true;
        }
    if (!session_.settingsProblem().isEmpty()) {
        emit session_.failed(session_.settingsProblem());
        return;
    }
    const Cluster& cluster = *current.problem->cluster;
    std::optional<Mesh> mesh = settings.mesh;
    try {
        // Locks, and a locked stage cut, belong to the plan's mesh: "auto" keeps it.
        if (aroundLocks || ((anyLock || current.plan.pipeline.locked) && !settings.mesh))
            mesh = current.plan.mesh;
        if (mesh)
            mesh->verify(cluster.deviceCount(), cluster.name);
    } catch (const InputError& e) {
        emit session_.failed(q(e.what()));
        return;
    }
    if (anyLock && mesh && *mesh != current.plan.mesh) {
        locks.clear();
        emit session_.message(tr("Locks not kept: they belong to mesh %1").arg(q(current.plan.mesh.toString())));
    }
    // On the plan's own pipelined mesh, a locked cut stays and locked ops keep their stages.
    std::vector<int> stageCut, blockStages;
    if (mesh && *mesh == current.plan.mesh && current.plan.pipeline.active()) {
        if (current.plan.pipeline.locked)
            stageCut = current.plan.pipeline.chunkBlocks;
        else if (!locks.empty() && current.problem->blocks)
            blockStages = lockedBlockStages(current.plan, *current.problem->blocks);
    } else if (current.plan.pipeline.locked) {
        emit session_.message(tr("Stage cut not kept: it belongs to mesh %1").arg(q(current.plan.mesh.toString())));
    }
    StepSettings step = settings.withFixed({});
    step.microbatches = settings.microbatches.value_or(current.problem->microbatches);
    step.recompute = settings.recompute.value_or(Recompute::None);
    step.optimizer = current.plan.settings.optimizer;
    step.zeroStage = settings.zeroStage.value_or(0);
    step.schedule = settings.schedule.value_or(ScheduleChoice{}).schedule;
    step.virtualStages = settings.schedule.value_or(ScheduleChoice{}).virtualStages;
    const OpenSettings open{!settings.zeroStage, !settings.recompute, !settings.microbatches, !settings.schedule};
    const std::optional<int> batch = settings.batch > 0 ? std::optional<int>(settings.batch) : std::nullopt;
    const SearchAlgorithm algorithm = settings.algorithm;
    const int threads = session_.searchThreads();
    // Around locks, the last search's bounds carry over (the engine checks that they still hold) and
    // the edited plan is weighed first: only what the edit could change is searched again.
    const std::shared_ptr<const SearchMemory> previous = aroundLocks && last_ ? last_->memory : nullptr;
    session_.jobs()->start<SearchOutcome>(
        aroundLocks ? tr("Re-searching around locks") : tr("Searching"),
        [current, locks, stageCut, blockStages, mesh, step, open, batch, algorithm, threads, previous](const JobContext& context) {
            const Problem& base = *current.problem;
            const bool fixedBatch = !base.source.builder;
            const bool rebuild = !fixedBatch && ((batch && batch != base.globalBatch()) || step.microbatches != base.microbatches);
            StepSettings use = step;
            if (fixedBatch)
                use.microbatches = 1;
            auto problem = rebuild ? rebuiltProblem(base, batch, step.microbatches) : current.problem;
            SearchRequest r;
            r.graph = problem->graph;
            r.cluster = problem->cluster;
            r.mesh = mesh;
            r.settings = use;
            r.open = open;
            if (problem->source.builder)
                r.family = graphFamilyOf(problem->source);
            r.locks = locks;
            r.stageCut = stageCut;
            r.blockStages = blockStages;
            r.algorithm = algorithm;
            r.previous = previous;
            if (previous && !rebuild)
                r.start = current.plan;
            r.threads = threads;
            r.stop = context.stop;
            r.progress = [&context](const SearchProgress& p) {
                context.progress(p.fraction, p.bestStepTime > 0 && p.bestStepTime < 1e300
                                                 ? QStringLiteral("best %1").arg(seconds(p.bestStepTime))
                                                 : QString());
            };
            auto result = search(r);
            // The search may have chosen another micro-batch count: the plan belongs to its graph.
            if (result->graph != problem->graph)
                problem = makeProblem(result->graph, problem->cluster, problem->source, problem->clusterSpec,
                                      problem->nodes, result->plan.settings.microbatches);
            // The search evaluated its plan: that evaluation is the one the window shows.
            return SearchOutcome{PlanState{problem, result->plan, result->model, result->evaluation}, result};
        },
        [this](const SearchOutcome& o) {
            last_ = o.result;
            searched_ = o.state;
            const SearchReport& r = o.result->report;
            session_.pushPlan(o.state, tr("Search (%1, %2)").arg(q(r.chosenBy()), q(o.state.plan.mesh.toString())));
            QString bound;
            if (r.optimalityGap)
                bound = *r.optimalityGap <= 1e-9
                            ? tr("; no plan that fits is faster")
                            : tr("; at most %1% above the fastest plan that fits").arg(100 * *r.optimalityGap, 0, 'g', 3);
            emit session_.message(tr("Search found %1 per step (simulated) on %2 in %3 (%4)%5")
                                      .arg(seconds(o.result->stepTime()), q(o.state.plan.mesh.toString()),
                                           seconds(r.searchSeconds), q(r.chosenBy()), bound));
        });
}

} // namespace shardscope::ui
