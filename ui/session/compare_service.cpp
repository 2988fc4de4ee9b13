#include "compare_service.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/plans/baselines.h"
#include "engine/sim/simulator.h"
#include "engine/util/error.h"

#include <QThreadPool>

namespace shardscope::ui {

namespace {

/// The best baseline of a comparison, and the plan's own step: both simulated.
struct BestBaseline {
    std::string name;
    double stepTime = 0;
    double planStepTime = 0;
};

/// The simulated step of `plan` under `model`.
double simulatedStep(const CostModel& model, const Plan& plan, const std::stop_token& stop) {
    SimOptions options;
    options.overlap = plan.settings.overlap;
    options.timelines = false;
    return simulate(model, plan, options, stop)->stepTime;
}

} // namespace

CompareService::CompareService(Session& session) : session_(session), runner_(QThreadPool::globalInstance()) {
    connect(&runner_, &JobRunner::failed, &session_, [this](const QString&, const QString& error) { emit session_.failed(error); });
}

void CompareService::withBaselines() {
    if (!session_.loaded())
        return;
    const PlanState current = session_.state();
    runner_.start<BestBaseline>(
        tr("Comparing with baselines"),
        [current](const JobContext& job) {
            BestBaseline best;
            bool bestFits = false;
            Plan bestPlan;
            for (const BaselineEntry& entry : baselineRegistry()) {
                StepSettings settings = current.plan.settings;
                settings.zeroStage = 0;
                settings.zeroAxes = 0;
                Plan plan;
                try {
                    plan = baselinePlan(*current.problem->graph, current.plan.mesh, entry.spec, settings);
                } catch (const InputError&) {
                    continue; // a baseline this mesh cannot express
                }
                const CostModel model(current.problem->graph, current.problem->cluster, plan.mesh, plan.settings);
                const auto e = evaluate(model, plan);
                const bool better = best.name.empty() || (e->feasible && !bestFits) ||
                                    (e->feasible == bestFits && e->stepTime < best.stepTime);
                if (better) {
                    best = BestBaseline{entry.spec, e->stepTime, 0};
                    bestFits = e->feasible;
                    bestPlan = plan;
                }
            }
            // The best baseline by its analytic step, then both sides simulated.
            if (!best.name.empty())
                best.stepTime = simulatedStep(CostModel(current.problem->graph, current.problem->cluster, bestPlan.mesh,
                                                        bestPlan.settings),
                                              bestPlan, job.stop);
            best.planStepTime = simulatedStep(*current.model, current.plan, job.stop);
            return best;
        },
        [this](const BestBaseline& b) { emit session_.comparison(q(b.name), b.stepTime, b.planStepTime); });
}

} // namespace shardscope::ui
