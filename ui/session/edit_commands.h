#pragma once
// Undoable edits of the plan (docs/DESIGN.md, The window): every override, lock, baseline, opened plan and
// search result is one command holding the plans before and after.

#include "plan_state.h"

#include <QUndoCommand>

#include <optional>

namespace shardscope::ui {

class Session;

/// Replaces the session's plan (and problem, when a search rebuilt the model) with another.
class ReplacePlanCommand final : public QUndoCommand {
public:
    /// From the session's current state to `after` (already costed, so the first redo is free).
    ReplacePlanCommand(Session* session, PlanState after, const QString& text);

    /// Applies the new plan.
    void redo() final;
    /// Restores the old plan.
    void undo() final;

private:
    Session* session_;
    std::shared_ptr<const Problem> beforeProblem_;
    Plan before_;
    std::shared_ptr<const Problem> afterProblem_;
    Plan after_;
    std::optional<PlanState> firstRedo_;
};

} // namespace shardscope::ui
