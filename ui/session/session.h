#pragma once
// The shared interaction state of the window (docs/DESIGN.md, The window): the loaded problem, the current plan
// and its evaluation, the selected op, the undo stack and the search settings. Views read it and
// subscribe to its signals; they never call each other. Long work (loading, searching, comparing)
// runs through JobRunners; edits go through QUndoStack commands.

#include "plan_state.h"
#include "search_settings.h"

#include "engine/io/scenario.h"
#include "engine/search/search.h"
#include "engine/sim/simulator.h"
#include "engine/tactics/tactic_runner.h"
#include "jobs/job_runner.h"

#include <QObject>
#include <QUndoStack>

#include <optional>

namespace shardscope::ui {

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
    /// The runner of loads and searches (progress, cancel).
    JobRunner* jobs() { return &jobs_; }
    /// True while a load, search, comparison or simulation runs.
    bool busy() const { return jobs_.busy() || compare_.busy() || simulate_.busy(); }
    /// The settings the next search uses.
    const SearchSettings& searchSettings() const { return settings_; }
    /// The last search's result, if any.
    std::shared_ptr<const SearchResult> lastSearch() const { return lastSearch_; }
    /// The last search's plan, costed (problem null before any search).
    const PlanState& searchedState() const { return searched_; }
    /// The plan file last opened or saved, or empty.
    QString planPath() const { return planPath_; }
    /// The simulated step of the current plan, or null while it is being simulated.
    std::shared_ptr<const SimResult> simulation() const { return simulation_; }
    /// How steps are simulated (overlap).
    const SimOptions& simOptions() const { return simOptions_; }
    /// Simulates with `options` from now on (and re-simulates the current plan).
    void setSimOptions(const SimOptions& options);
    /// Coalesces parameter collectives into buckets of `bytes` from now on, and re-costs the plan with
    /// them (undoable): StepSettings::bucketBytes.
    void setBucketBytes(double bytes);
    /// The tactic script being edited.
    const std::vector<Tactic>& tactics() const { return tactics_; }
    /// The last run of the tactics on the loaded problem, or null.
    std::shared_ptr<const TacticRun> tacticRun() const {
        return tacticProblem_ == state_.problem ? tacticRun_ : nullptr;
    }

    /// Loads a whole scenario (model, cluster, mesh, baseline or plan file); replaces everything
    /// and clears the undo stack. Asynchronous: stateReplaced() or failed().
    void openScenario(const ScenarioRequest& request);
    /// Opens an autosaved copy of unsaved edits as openScenario() does, but the plan counts as
    /// unsaved: closing asks to save it, and saving goes to `planPath` (asks for a file if empty).
    void recoverScenario(const ScenarioRequest& request, const QString& planPath);
    /// Loads another model on the current cluster, starting from data parallelism on the mesh.
    void openModel(const ModelRequest& model);
    /// Loads another cluster for the current model, keeping the plan when the device count allows.
    void openCluster(const std::string& spec, std::optional<int> nodes);
    /// Opens a plan file for the current model (rebuilt for the plan's micro-batch count).
    void openPlan(const QString& path);
    /// Saves the plan atomically to `path`; returns an error message or an empty string.
    QString savePlan(const QString& path);

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
    /// Replaces the tactic script (the last run's figures no longer belong to it).
    void setTactics(std::vector<Tactic> tactics);
    /// Reads a tactic script file into the editor; failed() on a bad file.
    void openTactics(const QString& path);
    /// Saves the tactic script; returns an error message or an empty string.
    QString saveTactics(const QString& path) const;
    /// Applies the tactics on the plan's mesh (the search bar's mesh if one is typed) in the
    /// background; the last step's plan becomes the current plan (undoable).
    void runTactics();
    /// Makes the plan after tactic step `step` the current plan (undoable), undecided ops marked.
    void showTacticStep(int step);

    /// Replaces the plan with a baseline on the current mesh and settings (undoable).
    void applyBaseline(const std::string& spec);
    /// Replaces the plan (and problem) with `state`, as the undoable edit `text`.
    void usePlan(PlanState state, const QString& text) { pushPlan(std::move(state), text); }

    /// Runs the search with the current settings. Locked ops keep their strategy (and, pipelined, their
    /// stage); a locked stage cut stays; with locks or a locked cut and mesh "auto" the mesh is the
    /// plan's. With `aroundLocks` the mesh is always the plan's.
    void runSearch(bool aroundLocks = false);
    /// Stops the running job; the plan stays as it was.
    void cancel();
    /// Evaluates the baselines on the current mesh in the background; comparison() reports the best.
    void compareWithBaseline();

    /// Replaces the state (used by undo commands); re-costs when needed and emits planChanged().
    void restore(const PlanState& state);

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
    /// The result of compareWithBaseline(): the best baseline, its step time, and the plan's.
    void comparison(const QString& baseline, double baselineStepTime, double planStepTime);

private:
    void replaceAll(PlanState state, const QString& planPath);
    void loadScenario(const ScenarioRequest& request, std::optional<QString> recoveredPlanPath);
    void resimulate();
    void pushPlan(PlanState next, const QString& text);

    PlanState state_;
    std::optional<OpId> selected_;
    QUndoStack undo_;
    JobRunner jobs_;
    JobRunner compare_;
    JobRunner simulate_;
    SimOptions simOptions_;
    std::shared_ptr<const SimResult> simulation_;
    std::vector<Tactic> tactics_;
    std::shared_ptr<const TacticRun> tacticRun_;
    std::shared_ptr<const Problem> tacticProblem_;
    SearchSettings settings_;
    QString settingsProblem_;
    std::shared_ptr<const SearchResult> lastSearch_;
    PlanState searched_;
    QString planPath_;
    int searchThreads_;
};

} // namespace shardscope::ui
