#pragma once
// The shared interaction state of the window (docs/DESIGN.md, The window): the loaded problem, the
// current plan and its evaluation, the selected op, the undo stack and the search settings; the
// services it owns keep the last search, the simulated step, the tactic script and its last run.
// Views read it and subscribe to its signals; they never call each other. The plan changes only through undoable commands (an
// edit here, or a service's result) or by a load, which starts a new document. The work that
// produces new plans lives in the services it owns (load, search, simulation, tactics, compare),
// each running in the background through a JobRunner.

#include "compare_service.h"
#include "load_service.h"
#include "plan_state.h"
#include "search_service.h"
#include "search_settings.h"
#include "simulation_service.h"
#include "tactic_service.h"

#include "jobs/job_runner.h"

#include <QObject>
#include <QUndoStack>

#include <optional>

namespace shardscope::ui {

class ReplacePlanCommand;

class Session final : public QObject {
    Q_OBJECT
public:
    /// An empty session; `searchThreads` is the search's mesh-choice thread count (0 = cores - 1).
    explicit Session(QObject* parent = nullptr, int searchThreads = 0);

    /// The current plan, problem, cost model and evaluation (problem is null before any load).
    const PlanState& state() const { return state_; }
    /// True when a model and cluster are loaded.
    bool loaded() const { return state_.problem != nullptr; }
    /// The selected op, if any.
    std::optional<OpId> selectedOp() const { return selected_; }
    /// Edits of the plan, undoable.
    QUndoStack* undoStack() { return &undo_; }
    /// The runner of loads, searches and tactic runs (progress, cancel): one at a time.
    JobRunner* jobs() { return &jobs_; }
    /// True while a load, search, tactic run, comparison or simulation runs.
    bool busy() const { return jobs_.busy() || compare_.busy() || simulation_.busy(); }
    /// Stops the running load, search or tactic run; the plan stays as it was.
    void cancel();
    /// The settings the next search uses.
    const SearchSettings& searchSettings() const { return settings_; }
    /// What is wrong with the settings as entered, or empty (setSettingsProblem).
    const QString& settingsProblem() const { return settingsProblem_; }
    /// The search's mesh-choice thread count.
    int searchThreads() const { return searchThreads_; }
    /// The plan file last opened or saved, or empty.
    QString planPath() const { return planPath_; }

    /// Opening and saving models, clusters, scenarios and plans.
    LoadService& loads() { return loads_; }
    /// The search.
    SearchService& search() { return search_; }
    /// The simulated step of the current plan.
    SimulationService& simulation() { return simulation_; }
    /// The tactic script, its runs and steps.
    TacticService& tactics() { return tactics_; }
    /// The comparison with the named baselines.
    CompareService& compare() { return compare_; }
    /// The same, read-only.
    const SimulationService& simulation() const { return simulation_; }
    const TacticService& tactics() const { return tactics_; }
    const SearchService& search() const { return search_; }

    /// Selects `op` (or nothing).
    void selectOp(std::optional<OpId> op);
    /// Sets the search settings.
    void setSearchSettings(const SearchSettings& settings);
    /// What is wrong with the settings as entered (say a mesh that does not parse), or empty. While
    /// set, searches and tactic runs fail with it instead of running on the last good settings.
    void setSettingsProblem(const QString& problem) { settingsProblem_ = problem; }
    /// Overrides the strategy of `op` (undoable).
    void overrideStrategy(OpId op, const OpStrategy& strategy);
    /// Locks or unlocks `op` (undoable).
    void setLocked(OpId op, bool locked);
    /// Locks or unlocks the pipelined plan's stage cut: searches on its mesh keep it (undoable).
    void setStageCutLocked(bool locked);
    /// Coalesces parameter collectives into buckets of `bytes` from now on, and re-costs the plan with
    /// them (undoable): StepSettings::bucketBytes.
    void setBucketBytes(double bytes);
    /// Replaces the plan with a baseline on the current mesh and settings (undoable).
    void applyBaseline(const std::string& spec);
    /// Replaces the plan (and problem) with `state`, as the undoable edit `text`.
    void usePlan(PlanState state, const QString& text);

signals:
    /// A new problem was loaded (or restored): views rebuild from scratch.
    void problemChanged();
    /// The plan or its evaluation changed.
    void planChanged();
    /// The selection changed.
    void selectionChanged();
    /// The current plan's simulation arrived (or was cleared).
    void simulationChanged();
    /// The tactic script changed.
    void tacticsChanged();
    /// A tactic run finished (or its figures were cleared).
    void tacticRunChanged();
    /// The search settings changed.
    void searchSettingsChanged();
    /// A load, search or save failed; `message` names the problem. Nothing already loaded changed.
    void failed(const QString& message);
    /// A short note for the status bar.
    void message(const QString& text);
    /// The result of CompareService::withBaselines(): the best baseline, its simulated step time, and the
    /// plan's simulated step time.
    void comparison(const QString& baseline, double baselineStepTime, double planStepTime);

private:
    // The services change the state only through these.
    friend class LoadService;
    friend class SearchService;
    friend class SimulationService;
    friend class TacticService;
    friend class CompareService;
    friend class ReplacePlanCommand;

    /// A new document: replaces everything, clears the undo stack and the last results.
    void replaceAll(PlanState state, const QString& planPath);
    /// The plan becomes `next`, as the undoable command `text`.
    void pushPlan(PlanState next, const QString& text);
    /// Pushes costPlan(state's problem, `plan`), or reports why it does not fit.
    void pushCosted(Plan plan, const QString& text);
    /// Replaces the state (undo commands only); emits planChanged() (and problemChanged()).
    void restore(const PlanState& state);
    /// The plan file is now `path` (opened or saved).
    void setPlanPath(const QString& path) { planPath_ = path; }

    PlanState state_;
    std::optional<OpId> selected_;
    QUndoStack undo_;
    JobRunner jobs_;
    SearchSettings settings_;
    QString settingsProblem_;
    QString planPath_;
    int searchThreads_;
    LoadService loads_;
    SearchService search_;
    SimulationService simulation_;
    TacticService tactics_;
    CompareService compare_;
};

} // namespace shardscope::ui
