#include "simulation_service.h"

#include "session.h"

#include "jobs/background_release.h"

#include <QThreadPool>

namespace shardscope::ui {

SimulationService::SimulationService(Session& session)
    : session_(session), runner_(QThreadPool::globalInstance()) {
    connect(&runner_, &JobRunner::failed, &session_, [this](const QString&, const QString& error) { emit session_.failed(error); });
}

void SimulationService::setOptions(const SimOptions& options) {
    options_ = options;
    rerun();
}

void SimulationService::rerun() {
    releaseInBackground(std::move(result_));
    result_.reset();
    emit session_.simulationChanged();
    if (!session_.loaded())
        return;
    const PlanState current = session_.state();
    const SimOptions options = options_;
    runner_.start<std::shared_ptr<const SimResult>>(
        tr("Simulating"),
        [current, options](const JobContext& context) {
            return simulate(*current.model, current.plan, options, context.stop);
        },
        [this](const std::shared_ptr<const SimResult>& r) {
            releaseInBackground(std::exchange(result_, r));
            emit session_.simulationChanged();
        });
}

} // namespace shardscope::ui
