#pragma once
// The current plan with everything needed to explain it: its problem, cost model and evaluation.
// Immutable once built; the session swaps whole states, and undo commands keep old ones.

#include "problem.h"

#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/plans/plan.h"

#include <memory>

namespace shardscope::ui {

/// A plan on a problem, costed.
struct PlanState {
    std::shared_ptr<const Problem> problem;
    Plan plan;
    std::shared_ptr<const CostModel> model;       ///< for plan.mesh and plan.settings
    std::shared_ptr<const Evaluation> evaluation; ///< evaluate(*model, plan)
};

/// Costs `plan` on `problem`, reusing `reuse`'s cost model when mesh and settings agree.
/// Throws InputError when the plan does not fit the problem (mesh, op strategies).
PlanState costPlan(std::shared_ptr<const Problem> problem, Plan plan, const PlanState* reuse = nullptr);

} // namespace shardscope::ui
