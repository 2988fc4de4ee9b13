#pragma once
// Opening and saving for the session (docs/DESIGN.md, Files): scenarios, models, clusters and plans
// are read and costed in the background; a failure leaves what is loaded as it was.

#include "engine/io/scenario.h"

#include <QObject>
#include <QString>

#include <optional>
#include <string>

namespace shardscope::ui {

class Session;

class LoadService final : public QObject {
    Q_OBJECT
public:
    /// Loads for `session`.
    explicit LoadService(Session& session);

    /// Loads a whole scenario (model, cluster, mesh, baseline or plan file); replaces everything
    /// and clears the undo stack. Asynchronous: Session::problemChanged() or failed().
    void openScenario(const ScenarioRequest& request);
    /// Opens an autosaved copy of unsaved edits as openScenario() does, but the plan counts as
    /// unsaved: closing asks to save it, and saving goes to `planPath` (asks for a file if empty).
    void recoverScenario(const ScenarioRequest& request, const QString& planPath);
    /// Loads another model on the current cluster, starting from data parallelism on the mesh.
    void openModel(const ModelRequest& model);
    /// Loads another cluster for the current model, keeping the plan when the device count allows.
    void openCluster(const std::string& spec, std::optional<int> nodes);
    /// Opens a plan file for the current model (rebuilt for the plan's micro-batch count), undoable.
    void openPlan(const QString& path);
    /// Saves the plan atomically to `path`; returns an error message or an empty string.
    QString savePlan(const QString& path);

private:
    void load(const ScenarioRequest& request, std::optional<QString> recoveredPlanPath);

    Session& session_;
};

} // namespace shardscope::ui
