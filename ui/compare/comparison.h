#pragma once
// The plans the compare panel sets side by side: the baselines on the current mesh, the searched
// plan, the current (edited) plan; each costed and simulated. Built off the UI thread.

#include "session/plan_state.h"

#include "engine/sim/simulator.h"
#include "engine/tactics/tactic_runner.h"

#include <string>
#include <vector>

namespace shardscope::ui {

/// One compared plan with its figures (seconds and bytes per step).
struct ComparedPlan {
    std::string name;
    PlanState state;
    double stepTime = 0;          ///< simulated
    double compute = 0;           ///< forward, backward, recomputation
    double exposedComm = 0;       ///< simulated step time not covered by compute, the optimizer or the bubble
    double optimizer = 0;
    double bubble = 0;            ///< pipelined: the slowest stage's idle time (the analytic figure)
    double peakMemory = 0;
    double capacity = 0;
    bool feasible = true;
};

/// The rows for `current` (and `searched`, named `searchName`, if it is for the same problem, and
/// every step of `tactics` if given), simulated with `options`. Baselines that cannot be built on
/// the mesh are left out.
std::vector<ComparedPlan> comparePlans(const PlanState& current, const PlanState& searched, const std::string& searchName,
                                       const TacticRun* tactics, const SimOptions& options);

} // namespace shardscope::ui
