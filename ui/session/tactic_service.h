#pragma once
// The tactic script of the session (docs/DESIGN.md, Tactics): edited, opened, saved, and applied in
// the background on the current problem, each step's plan available to show.

#include "engine/tactics/tactic_runner.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace shardscope::ui {

class Session;
struct Problem;

class TacticService final : public QObject {
    Q_OBJECT
public:
    /// The tactics of `session`.
    explicit TacticService(Session& session);

    /// The tactic script being edited.
    const std::vector<Tactic>& script() const { return script_; }
    /// Replaces the script (the last run's figures no longer belong to it).
    void setScript(std::vector<Tactic> tactics);
    /// Reads a tactic script file into the editor; Session::failed() on a bad file.
    void open(const QString& path);
    /// Saves the script; returns an error message or an empty string.
    QString save(const QString& path) const;
    /// Applies the script on the plan's mesh (the search bar's mesh if one is typed) in the
    /// background; the last step's plan becomes the current plan (undoable).
    void run();
    /// Makes the plan after tactic step `step` the current plan (undoable), undecided ops marked.
    void showStep(int step);
    /// The last run of the script on the loaded problem, or null.
    std::shared_ptr<const TacticRun> lastRun() const;
    /// Forgets the last run (a new document).
    void forgetRun();

private:
    Session& session_;
    std::vector<Tactic> script_;
    std::shared_ptr<const TacticRun> run_;
    std::shared_ptr<const Problem> runProblem_;
};

} // namespace shardscope::ui
