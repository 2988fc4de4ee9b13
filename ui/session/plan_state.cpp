#include "plan_state.h"

#include "engine/util/error.h"

namespace shardscope::ui {

PlanState costPlan(std::shared_ptr<const Problem> problem, Plan plan, const PlanState* reuse) {
    plan.mesh.verify(problem->cluster->deviceCount(), problem->cluster->name);
    if (const std::string error = plan.verify(*problem->graph); !error.empty())
        throw InputError(error);
    PlanState s;
    if (reuse && reuse->problem == problem && reuse->model && reuse->plan.mesh == plan.mesh &&
        reuse->plan.settings == plan.settings) {
        s.model = reuse->model;
    } else {
        s.model = std::make_shared<const CostModel>(problem->graph, problem->cluster, plan.mesh, plan.settings);
    }
    s.evaluation = evaluate(*s.model, plan);
    s.problem = std::move(problem);
    s.plan = std::move(plan);
    return s;
}

} // namespace shardscope::ui
