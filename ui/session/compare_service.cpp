#include "compare_service.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/plans/baselines.h"
#include "engine/util/error.h"

#include <QThreadPool>

namespace shardscope::ui {

namespace {

/// The best baseline of a comparison.
struct BestBaseline {
    std::string name;
    double stepTime = 0;
};

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
        [current](const JobContext&) {
            BestBaseline best;
            bool bestFits = false;
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
                    best = BestBaseline{entry.spec, e->stepTime};
                    bestFits = e->feasible;
                }
            }
            return best;
        },
        [this, current](const BestBaseline& b) {
            emit session_.comparison(q(b.name), b.stepTime, current.evaluation->stepTime);
        });
}

} // namespace shardscope::ui
