#include "session.h"

#include "edit_commands.h"
#include "util/qt_text.h"

#include "engine/plans/baselines.h"
#include "engine/util/error.h"

#include <QThread>

namespace shardscope::ui {

Session::Session(QObject* parent, int searchThreads)
    : QObject(parent), jobs_(QThreadPool::globalInstance()),
      searchThreads_(searchThreads > 0 ? searchThreads : std::max(1, QThread::idealThreadCount() - 1)), loads_(*this),
      search_(*this), simulation_(*this), tactics_(*this), compare_(*this) {
    undo_.setUndoLimit(500);
    connect(&jobs_, &JobRunner::failed, this, [this](const QString&, const QString& error) { emit failed(error); });
    connect(this, &Session::planChanged, &simulation_, &SimulationService::rerun);
}

void Session::cancel() {
    if (!jobs_.busy())
        return;
    jobs_.cancel();
    emit message(tr("Cancelled; the plan is unchanged"));
}

void Session::replaceAll(PlanState state, const QString& planPath) {
    undo_.clear();
    search_.forget();
    tactics_.forgetRun();
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
        if (selected_ && selected_->index() >= state_.problem->graph->ops().size())
            selected_.reset();
        emit problemChanged();
    }
    emit planChanged();
}

void Session::pushPlan(PlanState next, const QString& text) { undo_.push(new ReplacePlanCommand(this, std::move(next), text)); }

void Session::usePlan(PlanState state, const QString& text) { pushPlan(std::move(state), text); }

void Session::pushCosted(Plan plan, const QString& text) {
    try {
        pushPlan(costPlan(state_.problem, std::move(plan), &state_), text);
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
    const Op& o = state_.problem->graph->op(op);
    pushCosted(std::move(next), tr("Set %1 to %2").arg(q(o.name), q(strategy.toString(o.rule, state_.plan.mesh))));
}

void Session::setStageCutLocked(bool locked) {
    if (!loaded() || !state_.plan.pipeline.active() || state_.plan.pipeline.locked == locked)
        return;
    Plan next = state_.plan;
    next.pipeline.locked = locked;
    pushCosted(std::move(next), locked ? tr("Lock the stage cut") : tr("Unlock the stage cut"));
}

void Session::setLocked(OpId op, bool locked) {
    if (!loaded() || state_.plan.ops[op.index()].locked == locked)
        return;
    Plan next = state_.plan;
    next.ops[op.index()].locked = locked;
    const QString name = q(state_.problem->graph->op(op).name);
    pushCosted(std::move(next), locked ? tr("Lock %1").arg(name) : tr("Unlock %1").arg(name));
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
    pushCosted(std::move(next), tr("Gradient buckets of %1 MB").arg(bytes / 1e6));
}

void Session::applyBaseline(const std::string& spec) {
    if (!loaded())
        return;
    StepSettings settings = state_.plan.settings;
    settings.zeroStage = 0;
    settings.zeroAxes = 0;
    Plan plan;
    try {
        plan = baselinePlan(*state_.problem->graph, state_.plan.mesh, spec, settings);
    } catch (const InputError& e) {
        emit failed(q(e.what()));
        return;
    }
    pushCosted(std::move(plan), tr("Baseline %1").arg(q(spec)));
}

} // namespace shardscope::ui
