#pragma once
// The simulated step of the session's current plan (docs/DESIGN.md, Simulator): re-run in the
// background whenever the plan or the simulation options change.

#include "engine/sim/simulator.h"
#include "jobs/job_runner.h"

#include <QObject>

#include <memory>

namespace shardscope::ui {

class Session;

class SimulationService final : public QObject {
    Q_OBJECT
public:
    /// Simulates the plans of `session`.
    explicit SimulationService(Session& session);

    /// The simulated step of the current plan, or null while it is being simulated.
    std::shared_ptr<const SimResult> result() const { return result_; }
    /// How steps are simulated (overlap).
    const SimOptions& options() const { return options_; }
    /// Simulates with `options` from now on (and re-simulates the current plan).
    void setOptions(const SimOptions& options);
    /// True while a simulation runs.
    bool busy() const { return runner_.busy(); }
    /// Drops the result and simulates the current plan again.
    void rerun();

private:
    Session& session_;
    JobRunner runner_;
    SimOptions options_;
    std::shared_ptr<const SimResult> result_;
};

} // namespace shardscope::ui
