#include "comparison.h"

#include "engine/plans/baselines.h"
#include "engine/util/error.h"

namespace shardscope::ui {

namespace {

ComparedPlan measure(std::string name, PlanState state, const SimOptions& options) {
    ComparedPlan row;
    row.name = std::move(name);
    const auto sim = simulate(*state.model, state.plan, options);
    const Evaluation& e = *state.evaluation;
    row.stepTime = sim->stepTime;
    row.compute = e.computeTime;
    row.optimizer = e.optimizerTime;
    const double rest = std::max(0.0, sim->stepTime - e.computeTime - e.optimizerTime);
    row.bubble = std::min(rest, e.bubbleTime);
    row.exposedComm = rest - row.bubble;
    row.peakMemory = e.peakMemory;
    row.capacity = e.memoryCapacity;
    row.feasible = e.feasible;
    row.state = std::move(state);
    return row;
}

} // namespace

std::vector<ComparedPlan> comparePlans(const PlanState& current, const PlanState& searched, const std::string& searchName,
                                       const TacticRun* tactics, const SimOptions& options) {
    std::vector<ComparedPlan> rows;
    StepSettings settings = current.plan.settings;
    settings.zeroStage = 0;
    settings.zeroAxes = 0;
    for (const BaselineEntry& entry : baselineRegistry()) {
        const std::string& spec = entry.spec;
        if (spec == "fsdp")
            continue; // the same plan as zero3
        try {
            const Plan plan = baselinePlan(*current.problem->graph, current.plan.mesh, spec, settings);
            rows.push_back(measure(spec, costPlan(current.problem, plan, &current), options));
        } catch (const InputError&) {
            // A baseline this mesh cannot express (no model axis for megatron, say): not a row.
        }
    }
    const bool searchedHere = searched.problem == current.problem;
    if (searchedHere)
        rows.push_back(measure(searchName, searched, options));
    if (tactics)
        for (std::size_t i = 0; i < tactics->stages.size(); ++i)
            rows.push_back(measure("tactic " + std::to_string(i + 1) + ": " + tactics->stages[i].step.tactic,
                                   costPlan(current.problem, tactics->stages[i].plan, &current), options));
    const bool edited = !searchedHere || searched.plan.strategies() != current.plan.strategies() ||
                        !(searched.plan.mesh == current.plan.mesh);
    if (edited)
        rows.push_back(measure("current plan", current, options));
    return rows;
}

} // namespace shardscope::ui
