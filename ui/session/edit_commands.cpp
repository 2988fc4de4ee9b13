#include "edit_commands.h"

#include "session.h"

namespace shardscope::ui {

ReplacePlanCommand::ReplacePlanCommand(Session* session, PlanState after, const QString& text)
    : session_(session), beforeProblem_(session->state().problem), before_(session->state().plan),
      afterProblem_(after.problem), after_(after.plan), firstRedo_(std::move(after)) {
    setText(text);
}

void ReplacePlanCommand::redo() {
    if (firstRedo_) {
        session_->restore(*firstRedo_);
        firstRedo_.reset();
        return;
    }
    session_->restore(costPlan(afterProblem_, after_, &session_->state()));
}

void ReplacePlanCommand::undo() { session_->restore(costPlan(beforeProblem_, before_, &session_->state())); }

} // namespace shardscope::ui
