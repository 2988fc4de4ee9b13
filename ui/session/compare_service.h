#pragma once
// How the session's plan compares with the named baselines on its mesh, evaluated in the background.

#include "jobs/job_runner.h"

#include <QObject>

namespace shardscope::ui {

class Session;

class CompareService final : public QObject {
    Q_OBJECT
public:
    /// Compares the plans of `session`.
    explicit CompareService(Session& session);

    /// Evaluates every baseline on the current mesh and settings; Session::comparison() reports the
    /// best (the fastest that fits, else the fastest).
    void withBaselines();
    /// True while a comparison runs.
    bool busy() const { return runner_.busy(); }

private:
    Session& session_;
    JobRunner runner_;
};

} // namespace shardscope::ui
