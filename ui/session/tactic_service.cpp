#include "tactic_service.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/io/safe_write.h"
#include "engine/io/tactic_file.h"
#include "engine/util/error.h"

#include <QFileInfo>

namespace shardscope::ui {

TacticService::TacticService(Session& session) : session_(session) {}

std::shared_ptr<const TacticRun> TacticService::lastRun() const {
    return runProblem_ == session_.state().problem ? run_ : nullptr;
}

void TacticService::forgetRun() {
    run_.reset();
    runProblem_.reset();
    emit session_.tacticRunChanged();
}

void TacticService::setScript(std::vector<Tactic> tactics) {
    script_ = std::move(tactics);
    run_.reset();
    emit session_.tacticsChanged();
    emit session_.tacticRunChanged();
}

void TacticService::open(const QString& path) {
    try {
        setScript(loadTactics(path.toStdString()));
        emit session_.message(tr("Opened tactics %1 (%2 steps)").arg(path).arg(script_.size()));
    } catch (const std::exception& e) {
        emit session_.failed(q(e.what()));
    }
}

QString TacticService::save(const QString& path) const {
    try {
        writeFileAtomically(path.toStdString(), tacticsToJson(script_, QFileInfo(path).baseName().toStdString()));
    } catch (const std::exception& e) {
        return q(e.what());
    }
    return {};
}

void TacticService::run() {
    if (!session_.loaded())
        return;
    if (script_.empty()) {
        emit session_.failed(tr("No tactics to run: add some in the Tactics panel, or open a *.tactics.json"));
        return;
    }
    if (!session_.settingsProblem().isEmpty()) {
        emit session_.failed(session_.settingsProblem());
        return;
    }
    const PlanState current = session_.state();
    const SearchSettings& settings = session_.searchSettings();
    Mesh mesh = settings.mesh.value_or(current.plan.mesh);
    try {
        mesh.verify(current.problem->cluster->deviceCount(), current.problem->cluster->name);
    } catch (const InputError& e) {
        emit session_.failed(q(e.what()));
        return;
    }
    StepSettings step = settings.withFixed(current.plan.settings);
    step.zeroStage = 0;
    step.zeroAxes = 0;
    step.recompute = settings.recompute.value_or(current.plan.settings.recompute);
    const std::vector<Tactic> tactics = script_;
    const SimOptions sim = session_.simulation().options();
    const int threads = session_.searchThreads();
    session_.jobs()->start<std::shared_ptr<const TacticRun>>(
        tr("Applying tactics"),
        [current, mesh, step, tactics, sim, threads](const JobContext& context) {
            TacticRequest r;
            r.graph = current.problem->graph;
            r.cluster = current.problem->cluster;
            r.mesh = mesh;
            r.settings = step;
            r.tactics = tactics;
            r.simulation = sim;
            r.threads = threads;
            r.stop = context.stop;
            r.progress = [&context](double f, const std::string& what) { context.progress(f, q(what)); };
            return runTactics(r);
        },
        [this, current](const std::shared_ptr<const TacticRun>& run) {
            if (current.problem != session_.state().problem)
                return; // another model was loaded meanwhile
            run_ = run;
            runProblem_ = current.problem;
            emit session_.tacticRunChanged();
            // The run costed its plan: the window shows that evaluation, not a second one.
            session_.pushPlan(PlanState{current.problem, run->plan, run->model, run->evaluation},
                              tr("Apply %1 tactics").arg(run->stages.size()));
        });
}

void TacticService::showStep(int step) {
    const auto run = lastRun();
    if (!run || step < 0 || std::size_t(step) >= run->stages.size())
        return;
    const TacticStage& stage = run->stages[std::size_t(step)];
    session_.pushPlan(PlanState{runProblem_, stage.plan, stage.model, stage.evaluation},
                      tr("Show tactic step %1: %2").arg(step + 1).arg(q(stage.step.tactic)));
}

} // namespace shardscope::ui
