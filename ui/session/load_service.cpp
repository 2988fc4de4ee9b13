#include "load_service.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/io/cluster_file.h"
#include "engine/io/plan_file.h"
#include "engine/plans/baselines.h"

namespace shardscope::ui {

namespace {

/// One axis named "data" over every device.
Mesh dataMesh(int devices) { return Mesh{{MeshAxis::of(AxisRole::Data, devices)}}; }

} // namespace

LoadService::LoadService(Session& session) : session_(session) {}

void LoadService::openScenario(const ScenarioRequest& request) { load(request, std::nullopt); }

void LoadService::recoverScenario(const ScenarioRequest& request, const QString& planPath) { load(request, planPath); }

void LoadService::load(const ScenarioRequest& request, std::optional<QString> recoveredPlanPath) {
    session_.jobs()->start<PlanState>(
        tr("Loading %1").arg(q(request.model.spec)),
        [request](const JobContext&) {
            Scenario s = loadScenario(request);
            auto problem = makeProblem(std::move(s.graph), std::move(s.cluster), std::move(s.source), request.cluster,
                                       request.nodes, s.plan.settings.microbatches);
            return costPlan(std::move(problem), std::move(s.plan));
        },
        [this, request, recoveredPlanPath](const PlanState& s) {
            const QString name = tr("%1 on %2").arg(q(s.problem->graph->name), q(s.problem->cluster->name));
            if (recoveredPlanPath) {
                session_.replaceAll(s, *recoveredPlanPath);
                session_.undoStack()->resetClean();
                emit session_.message(tr("Recovered the unsaved plan of %1").arg(name));
                return;
            }
            session_.replaceAll(s, isBaselineSpec(request.strategy) ? QString() : q(request.strategy));
            emit session_.message(tr("Opened %1").arg(name));
        });
}

void LoadService::openModel(const ModelRequest& model) {
    const bool loaded = session_.loaded();
    const PlanState& current = session_.state();
    const std::string clusterSpec = loaded ? current.problem->clusterSpec : std::string("dgx-a100");
    const std::optional<int> nodes = loaded ? current.problem->nodes : std::nullopt;
    const std::optional<Mesh> mesh = loaded ? std::optional<Mesh>(current.plan.mesh) : std::nullopt;
    const SearchSettings& search = session_.searchSettings();
    StepSettings settings = search.withFixed({});
    settings.microbatches = search.microbatches.value_or(1);
    settings.recompute = search.recompute.value_or(Recompute::None);
    session_.jobs()->start<PlanState>(
        tr("Loading %1").arg(q(model.spec)),
        [model, clusterSpec, nodes, mesh, settings](const JobContext&) {
            // A model file fixes its batch: it is built for one micro-batch.
            StepSettings use = settings;
            const ModelSource source = readModelSource(model);
            if (!source.builder)
                use.microbatches = 1;
            auto problem = loadProblem(source, clusterSpec, nodes, use.microbatches);
            const Mesh m = mesh ? *mesh : dataMesh(problem->cluster->deviceCount());
            return costPlan(problem, baselinePlan(*problem->graph, m, "dp", use));
        },
        [this](const PlanState& s) {
            session_.replaceAll(s, {});
            emit session_.message(tr("Opened model %1").arg(q(s.problem->graph->name)));
        });
}

void LoadService::openCluster(const std::string& spec, std::optional<int> nodes) {
    if (!session_.loaded()) {
        ScenarioRequest request;
        request.model.spec = "gpt2-small";
        request.cluster = spec;
        request.nodes = nodes;
        openScenario(request);
        return;
    }
    const PlanState current = session_.state();
    session_.jobs()->start<PlanState>(
        tr("Loading cluster %1").arg(q(spec)),
        [current, spec, nodes](const JobContext&) {
            const Problem& p = *current.problem;
            auto cluster = std::make_shared<const Cluster>(loadCluster(spec, nodes));
            auto problem = makeProblem(p.graph, std::move(cluster), p.source, spec, nodes, p.microbatches);
            const int devices = problem->cluster->deviceCount();
            if (current.plan.mesh.deviceCount() == devices)
                return costPlan(problem, current.plan);
            return costPlan(problem, baselinePlan(*problem->graph, dataMesh(devices), "dp", current.plan.settings));
        },
        [this](const PlanState& s) {
            session_.replaceAll(s, {});
            emit session_.message(tr("Opened cluster %1 (%2 devices)")
                                      .arg(q(s.problem->cluster->name))
                                      .arg(s.problem->cluster->deviceCount()));
        });
}

void LoadService::openPlan(const QString& path) {
    if (!session_.loaded()) {
        emit session_.failed(tr("Open a model before a plan: %1 needs the model it was made for").arg(path));
        return;
    }
    const auto problem = session_.state().problem;
    session_.jobs()->start<PlanState>(
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
            session_.pushPlan(s, tr("Open plan %1").arg(path));
            session_.setPlanPath(path);
            emit session_.message(tr("Opened plan %1").arg(path));
        });
}

QString LoadService::savePlan(const QString& path) {
    if (!session_.loaded())
        return tr("Nothing to save: no model is loaded");
    const PlanState& s = session_.state();
    try {
        shardscope::savePlan(path.toStdString(), s.plan, *s.problem->graph, s.evaluation.get());
    } catch (const std::exception& e) {
        return q(e.what());
    }
    session_.setPlanPath(path);
    session_.undoStack()->setClean();
    emit session_.message(tr("Saved %1").arg(path));
    return {};
}

} // namespace shardscope::ui
