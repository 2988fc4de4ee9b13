#include "session.h"

#include "edit_commands.h"
#include "util/qt_text.h"

#include "engine/io/cluster_file.h"
#include "engine/io/json_fields.h"
#include "engine/io/tactic_file.h"
#include "engine/io/plan_file.h"
#include "engine/pipeline/stage_cuts.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

#include <QFileInfo>
#include <QThread>

namespace shardscope::ui {

namespace {


/// One axis named "data" over every device.
Mesh dataMesh(int devices) { return Mesh{{MeshAxis::of(AxisRole::Data, devices)}}; }

/// A search's plan, costed, with its report.
struct SearchOutcome {
    PlanState state;
    std::shared_ptr<const SearchResult> result;
};

/// The best baseline of a comparison.
struct Comparison {
    std::string name;
    double stepTime = 0;
};

} // namespace

Session::Session(QObject* parent, int searchThreads)
    : QObject(parent), jobs_(QThreadPool::globalInstance()), compare_(QThreadPool::globalInstance()),
      simulate_(QThreadPool::globalInstance()),
      searchThreads_(searchThreads > 0 ? searchThreads : std::max(1, QThread::idealThreadCount() - 1)) {
    undo_.setUndoLimit(500);
    connect(&jobs_, &JobRunner::failed, this, [this](const QString&, const QString& error) { emit failed(error); });
    connect(&compare_, &JobRunner::failed, this, [this](const QString&, const QString& error) { emit failed(error); });
    connect(&simulate_, &JobRunner::failed, this, [this](const QString&, const QString& error) { emit failed(error); });
    connect(this, &Session::planChanged, this, &Session::resimulate);
}

void Session::setSimOptions(const SimOptions& options) {
    simOptions_ = options;
    resimulate();
}

void Session::resimulate() {
    simulation_.reset();
    emit simulationChanged();
    if (!loaded())
        return;
    const PlanState current = state_;
    const SimOptions options = simOptions_;
    simulate_.start<std::shared_ptr<const SimResult>>(
        tr("Simulating"),
        [current, options](const JobContext& context) {
            return simulate(*current.model, current.plan, options, context.stop);
        },
        [this](const std::shared_ptr<const SimResult>& r) {
            simulation_ = r;
            emit simulationChanged();
        });
}

void Session::replaceAll(PlanState state, const QString& planPath) {
    undo_.clear();
    lastSearch_.reset();
    searched_ = PlanState{};
    tacticRun_.reset();
    emit tacticRunChanged();
    planPath_ = planPath;
    state_ = std::move(state);
    // The fixed settings of what was opened carry into the next search (the search bar shows them).
    if (settings_.takeFixed(state_.plan.settings))
        emit searchSettingsChanged();
    // Start on the op that costs the most, so the inspector has something to explain.
    selected_.reset();
    double most = -1;
    for (const OpReport& r : state_.evaluation->perOp)
        if (r.computeTime + r.commTime > most) {
            most = r.computeTime + r.commTime;
            selected_ = r.op;
        }
    emit problemChanged();
    emit planChanged();
    emit selectionChanged();
}

void Session::restore(const PlanState& state) {
    const bool newProblem = state.problem != state_.problem;
    state_ = state;
    if (newProblem) {
        if (selected_ && selected_->index() >= state_.problem->graph.ops().size())
            selected_.reset();
        emit problemChanged();
    }
    emit planChanged();
}

void Session::pushPlan(PlanState next, const QString& text) { undo_.push(new ReplacePlanCommand(this, std::move(next), text)); }

void Session::openScenario(const ScenarioRequest& request) { loadScenario(request, std::nullopt); }

void Session::recoverScenario(const ScenarioRequest& request, const QString& planPath) {
    loadScenario(request, planPath);
}

void Session::loadScenario(const ScenarioRequest& request, std::optional<QString> recoveredPlanPath) {
    jobs_.start<PlanState>(
        tr("Loading %1").arg(q(request.model.spec)),
        [request](const JobContext&) {
            Scenario s = shardscope::loadScenario(request);
            auto problem = makeProblem(std::move(s.graph), std::move(s.cluster), std::move(s.source), request.cluster,
                                       request.nodes, s.plan.settings.microbatches);
            return costPlan(std::move(problem), std::move(s.plan));
        },
        [this, request, recoveredPlanPath](const PlanState& s) {
            const QString name = tr("%1 on %2").arg(q(s.problem->graph.name), q(s.problem->cluster.name));
            if (recoveredPlanPath) {
                replaceAll(s, *recoveredPlanPath);
                undo_.resetClean();
                emit message(tr("Recovered the unsaved plan of %1").arg(name));
                return;
            }
            replaceAll(s, isBaselineSpec(request.strategy) ? QString() : q(request.strategy));
            emit message(tr("Opened %1").arg(name));
        });
}

void Session::openModel(const ModelRequest& model) {
    const std::string clusterSpec = loaded() ? state_.problem->clusterSpec : std::string("dgx-a100");
    const std::optional<int> nodes = loaded() ? state_.problem->nodes : std::nullopt;
    const std::optional<Mesh> mesh = loaded() ? std::optional<Mesh>(state_.plan.mesh) : std::nullopt;
    StepSettings settings = settings_.withFixed({});
    settings.microbatches = settings_.microbatches.value_or(1);
    settings.recompute = settings_.recompute.value_or(Recompute::None);
    jobs_.start<PlanState>(
        tr("Loading %1").arg(q(model.spec)),
        [model, clusterSpec, nodes, mesh, settings](const JobContext&) {
            // A model file fixes its batch: it is built for one micro-batch.
            StepSettings use = settings;
            const ModelSource source = readModelSource(model);
            if (!source.builder)
                use.microbatches = 1;
            auto problem = loadProblem(source, clusterSpec, nodes, use.microbatches);
            const Mesh m = mesh ? *mesh : dataMesh(problem->cluster.deviceCount());
            return costPlan(problem, baselinePlan(problem->graph, m, "dp", use));
        },
        [this](const PlanState& s) {
            replaceAll(s, {});
            emit message(tr("Opened model %1").arg(q(s.problem->graph.name)));
        });
}

void Session::openCluster(const std::string& spec, std::optional<int> nodes) {
    if (!loaded()) {
        ScenarioRequest request;
        request.model.spec = "gpt2-small";
        request.cluster = spec;
        request.nodes = nodes;
        openScenario(request);
        return;
    }
    const PlanState current = state_;
    jobs_.start<PlanState>(
        tr("Loading cluster %1").arg(q(spec)),
        [current, spec, nodes](const JobContext&) {
            const Problem& p = *current.problem;
            auto problem = makeProblem(p.graph, loadCluster(spec, nodes), p.source, spec, nodes, p.microbatches);
            const int devices = problem->cluster.deviceCount();
            if (current.plan.mesh.deviceCount() == devices)
                return costPlan(problem, current.plan);
            return costPlan(problem, baselinePlan(problem->graph, dataMesh(devices), "dp", current.plan.settings));
        },
        [this](const PlanState& s) {
            replaceAll(s, {});
            emit message(tr("Opened cluster %1 (%2 devices)")
                             .arg(q(s.problem->cluster.name))
                             .arg(s.problem->cluster.deviceCount()));
        });
}

void Session::openPlan(const QString& path) {
    if (!loaded()) {
        emit failed(tr("Open a model before a plan: %1 needs the model it was made for").arg(path));
        return;
    }
    const auto problem = state_.problem;
    jobs_.start<PlanState>(
        tr("Opening plan %1").arg(path),
        [problem, path](const JobContext&) {
            ModelWithPlan loaded = loadPlanWithModel(problem->source, path.toStdString());
            const int micro = loaded.plan.settings.microbatches;
            auto p = micro == problem->microbatches
                         ? problem
                         : makeProblem(std::move(loaded.graph), problem->cluster, problem->source, problem->clusterSpec,
                                       problem->nodes, micro);
            return costPlan(p, std::move(loaded.plan));
        },
        [this, path](const PlanState& s) {
            pushPlan(s, tr("Open plan %1").arg(path));
            planPath_ = path;
            emit message(tr("Opened plan %1").arg(path));
        });
}

QString Session::savePlan(const QString& path) {
    if (!loaded())
        return tr("Nothing to save: no model is loaded");
    try {
        shardscope::savePlan(path.toStdString(), state_.plan, state_.problem->graph, state_.evaluation.get());
    } catch (const std::exception& e) {
        return q(e.what());
    }
    planPath_ = path;
    undo_.setClean();
    emit message(tr("Saved %1").arg(path));
    return {};
}

void Session::setTactics(std::vector<Tactic> tactics) {
    tactics_ = std::move(tactics);
    tacticRun_.reset();
    emit tacticsChanged();
    emit tacticRunChanged();
}

void Session::openTactics(const QString& path) {
    try {
        setTactics(loadTactics(path.toStdString()));
        emit message(tr("Opened tactics %1 (%2 steps)").arg(path).arg(tactics_.size()));
    } catch (const std::exception& e) {
        emit failed(q(e.what()));
    }
}

QString Session::saveTactics(const QString& path) const {
    try {
        writeFileAtomically(path.toStdString(), tacticsToJson(tactics_, QFileInfo(path).baseName().toStdString()));
    } catch (const std::exception& e) {
        return q(e.what());
    }
    return {};
}

void Session::runTactics() {
    if (!loaded())
        return;
    if (tactics_.empty()) {
        emit failed(tr("No tactics to run: add some in the Tactics panel, or open a *.tactics.json"));
        return;
    }
    const PlanState current = state_;
    if (!settingsProblem_.isEmpty()) {
        emit failed(settingsProblem_);
        return;
    }
    Mesh mesh = settings_.mesh.value_or(current.plan.mesh);
    try {
        mesh.verify(current.problem->cluster.deviceCount(), current.problem->cluster.name);
    } catch (const InputError& e) {
        emit failed(q(e.what()));
        return;
    }
    StepSettings step = settings_.withFixed(current.plan.settings);
    step.zeroStage = 0;
    step.zeroAxes = 0;
    step.recompute = settings_.recompute.value_or(current.plan.settings.recompute);
    const std::vector<Tactic> tactics = tactics_;
    const SimOptions sim = simOptions_;
    const int threads = searchThreads_;
    jobs_.start<std::shared_ptr<const TacticRun>>(
        tr("Applying tactics"),
        [current, mesh, step, tactics, sim, threads](const JobContext& context) {
            TacticRequest r;
            r.graph = &current.problem->graph;
            r.cluster = &current.problem->cluster;
            r.mesh = mesh;
            r.settings = step;
            r.tactics = tactics;
            r.simulation = sim;
            r.threads = threads;
            r.stop = context.stop;
            r.progress = [&context](double f, const std::string& what) { context.progress(f, q(what)); };
            return shardscope::runTactics(r);
        },
        [this, current](const std::shared_ptr<const TacticRun>& run) {
            if (current.problem != state_.problem)
                return; // another model was loaded meanwhile
            tacticRun_ = run;
            tacticProblem_ = current.problem;
            emit tacticRunChanged();
            try {
                pushPlan(costPlan(current.problem, run->plan, &state_), tr("Apply %1 tactics").arg(run->stages.size()));
            } catch (const InputError& e) {
                emit failed(q(e.what()));
            }
        });
}

void Session::showTacticStep(int step) {
    if (!tacticRun_ || tacticProblem_ != state_.problem || step < 0 || std::size_t(step) >= tacticRun_->stages.size())
        return;
    const TacticStage& stage = tacticRun_->stages[std::size_t(step)];
    try {
        pushPlan(costPlan(state_.problem, stage.plan, &state_),
                 tr("Show tactic step %1: %2").arg(step + 1).arg(q(stage.step.tactic)));
    } catch (const InputError& e) {
        emit failed(q(e.what()));
    }
}

void Session::selectOp(std::optional<OpId> op) {
    if (op == selected_)
        return;
    selected_ = op;
    emit selectionChanged();
}

void Session::setSearchSettings(const SearchSettings& settings) {
    if (settings == settings_)
        return;
    settings_ = settings;
    emit searchSettingsChanged();
}

void Session::overrideStrategy(OpId op, const OpStrategy& strategy) {
    if (!loaded() || state_.plan.ops[op.index()].strategy == strategy)
        return;
    Plan next = state_.plan;
    next.ops[op.index()].strategy = strategy;
    next.ops[op.index()].setWhy(Provenance::Source::Hand, next.mesh.rank());
    const Op& o = state_.problem->graph.op(op);
    try {
        pushPlan(costPlan(state_.problem, std::move(next), &state_),
                 tr("Set %1 to %2").arg(q(o.name), q(strategy.toString(o.rule, state_.plan.mesh))));
    } catch (const InputError& e) {
        emit failed(q(e.what()));
    }
}

void Session::setStageCutLocked(bool locked) {
    if (!loaded() || !state_.plan.pipeline.active() || state_.plan.pipeline.locked == locked)
        return;
    Plan next = state_.plan;
    next.pipeline.locked = locked;
    pushPlan(costPlan(state_.problem, std::move(next), &state_), locked ? tr("Lock the stage cut") : tr("Unlock the stage cut"));
}

void Session::setLocked(OpId op, bool locked) {
    if (!loaded() || state_.plan.ops[op.index()].locked == locked)
        return;
    Plan next = state_.plan;
    next.ops[op.index()].locked = locked;
    const QString name = q(state_.problem->graph.op(op).name);
    pushPlan(costPlan(state_.problem, std::move(next), &state_), locked ? tr("Lock %1").arg(name) : tr("Unlock %1").arg(name));
}

void Session::setBucketBytes(double bytes) {
    if (bytes == settings_.bucketBytes && (!loaded() || bytes == state_.plan.settings.bucketBytes))
        return;
    settings_.bucketBytes = bytes;
    emit searchSettingsChanged();
    if (!loaded() || state_.plan.settings.bucketBytes == bytes)
        return;
    Plan next = state_.plan;
    next.settings.bucketBytes = bytes;
    try {
        pushPlan(costPlan(state_.problem, std::move(next), &state_), tr("Gradient buckets of %1 MB").arg(bytes / 1e6));
    } catch (const InputError& e) {
        emit failed(q(e.what()));
    }
}

void Session::applyBaseline(const std::string& spec) {
    if (!loaded())
        return;
    try {
        StepSettings settings = state_.plan.settings;
        settings.zeroStage = 0;
        settings.zeroAxes = 0;
        Plan plan = baselinePlan(state_.problem->graph, state_.plan.mesh, spec, settings);
        pushPlan(costPlan(state_.problem, std::move(plan), &state_), tr("Baseline %1").arg(q(spec)));
    } catch (const InputError& e) {
        emit failed(q(e.what()));
    }
}

void Session::runSearch(bool aroundLocks) {
    if (!loaded())
        return;
    const SearchSettings settings = settings_;
    const PlanState current = state_;
    std::vector<std::optional<OpStrategy>> locks(current.plan.ops.size());
    bool anyLock = false;
    for (std::size_t i = 0; i < locks.size(); ++i)
        if (current.plan.ops[i].locked) {
            locks[i] = current.plan.ops[i].strategy;
            anyLock = true;
        }
    if (!settingsProblem_.isEmpty()) {
        emit failed(settingsProblem_);
        return;
    }
    std::optional<Mesh> mesh = settings.mesh;
    try {
        // Locks, and a locked stage cut, belong to the plan's mesh: "auto" keeps it.
        if (aroundLocks || ((anyLock || current.plan.pipeline.locked) && !settings.mesh))
            mesh = current.plan.mesh;
        if (mesh)
            mesh->verify(current.problem->cluster.deviceCount(), current.problem->cluster.name);
    } catch (const InputError& e) {
        emit failed(q(e.what()));
        return;
    }
    if (anyLock && mesh && *mesh != current.plan.mesh) {
        locks.clear();
        emit message(tr("Locks not kept: they belong to mesh %1").arg(q(current.plan.mesh.toString())));
    }
    // On the plan's own pipelined mesh, a locked cut stays and locked ops keep their stages.
    std::vector<int> stageCut, blockStages;
    if (mesh && *mesh == current.plan.mesh && current.plan.pipeline.active()) {
        if (current.plan.pipeline.locked)
            stageCut = current.plan.pipeline.chunkBlocks;
        else if (!locks.empty() && current.problem->blocks)
            blockStages = lockedBlockStages(current.plan, *current.problem->blocks);
    } else if (current.plan.pipeline.locked) {
        emit message(tr("Stage cut not kept: it belongs to mesh %1").arg(q(current.plan.mesh.toString())));
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
    const int threads = searchThreads_;
    jobs_.start<SearchOutcome>(
        aroundLocks ? tr("Re-searching around locks") : tr("Searching"),
        [current, locks, stageCut, blockStages, mesh, step, open, batch, algorithm, threads](const JobContext& context) {
            const Problem& base = *current.problem;
            const bool fixedBatch = !base.source.builder;
            const bool rebuild = !fixedBatch && ((batch && batch != base.globalBatch()) || step.microbatches != base.microbatches);
            StepSettings use = step;
            if (fixedBatch)
                use.microbatches = 1;
            auto problem = rebuild ? rebuiltProblem(base, batch, step.microbatches) : current.problem;
            SearchRequest r;
            r.graph = &problem->graph;
            r.cluster = &problem->cluster;
            r.mesh = mesh;
            r.settings = use;
            r.open = open;
            if (problem->source.builder)
                r.family = GraphFamily{*problem->globalBatch(), [problem](int micro) {
                                           return rebuiltProblem(*problem, std::nullopt, micro)->graph;
                                       }};
            r.locks = locks;
            r.stageCut = stageCut;
            r.blockStages = blockStages;
            r.algorithm = algorithm;
            r.threads = threads;
            r.stop = context.stop;
            r.progress = [&context](const SearchProgress& p) {
                context.progress(p.fraction, p.bestStepTime > 0 && p.bestStepTime < 1e300
                                                 ? QStringLiteral("best %1").arg(seconds(p.bestStepTime))
                                                 : QString());
            };
            auto result = search(r);
            // The search may have chosen another micro-batch count: the plan belongs to its graph.
            if (result->plan.settings.microbatches != problem->microbatches && problem->source.builder)
                problem = rebuiltProblem(*problem, std::nullopt, result->plan.settings.microbatches);
            return SearchOutcome{costPlan(problem, result->plan), result};
        },
        [this](const SearchOutcome& o) {
            lastSearch_ = o.result;
            searched_ = o.state;
            const SearchReport& r = o.result->report;
            pushPlan(o.state, tr("Search (%1, %2)").arg(q(r.chosenBy()), q(o.state.plan.mesh.toString())));
            QString bound;
            if (r.optimalityGap)
                bound = *r.optimalityGap <= 1e-9
                            ? tr("; no plan that fits is faster")
                            : tr("; at most %1% above the fastest plan that fits").arg(100 * *r.optimalityGap, 0, 'g', 3);
            emit message(tr("Search found %1 per step on %2 in %3 (%4)%5")
                             .arg(seconds(o.state.evaluation->stepTime), q(o.state.plan.mesh.toString()),
                                  seconds(r.searchSeconds), q(r.chosenBy()), bound));
        });
}

void Session::cancel() {
    if (!jobs_.busy())
        return;
    jobs_.cancel();
    emit message(tr("Cancelled; the plan is unchanged"));
}

void Session::compareWithBaseline() {
    if (!loaded())
        return;
    const PlanState current = state_;
    compare_.start<Comparison>(
        tr("Comparing with baselines"),
        [current](const JobContext&) {
            Comparison best;
            bool bestFits = false;
            for (const BaselineEntry& entry : baselineRegistry()) {
                const std::string& spec = entry.spec;
                StepSettings settings = current.plan.settings;
                settings.zeroStage = 0;
                settings.zeroAxes = 0;
                Plan plan;
                try {
                    plan = baselinePlan(current.problem->graph, current.plan.mesh, spec, settings);
                } catch (const InputError&) {
                    continue; // a baseline this mesh cannot express
                }
                const CostModel model(current.problem->graph, current.problem->cluster, plan.mesh, plan.settings);
                const auto e = evaluate(model, plan);
                const bool better = best.name.empty() || (e->feasible && !bestFits) ||
                                    (e->feasible == bestFits && e->stepTime < best.stepTime);
                if (better) {
                    best = Comparison{spec, e->stepTime};
                    bestFits = e->feasible;
                }
            }
            return best;
        },
        [this, current](const Comparison& c) {
            emit comparison(q(c.name), c.stepTime, current.evaluation->stepTime);
        });
}

} // namespace shardscope::ui
