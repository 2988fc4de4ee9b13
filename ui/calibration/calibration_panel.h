#pragma once
// The calibration panel: load a user's measured runs (shardscope-measurements files), fit the
// current cluster's efficiencies to them in the background (engine/fidelity/calibration.h), show
// predicted against measured per run as a table and a scatter (start cluster and fitted, with the
// diagonal where prediction equals measurement), and apply the fitted cluster: saved as a cluster
// file and opened as the session's cluster.

#include "jobs/job_runner.h"
#include "session/session.h"

#include "engine/fidelity/calibration.h"

#include <QWidget>

#include <optional>
#include <vector>

class QChart;
class QLabel;
class QComboBox;
class QPushButton;
class QTableWidget;

namespace shardscope::ui {

class CalibrationPanel final : public QWidget {
    Q_OBJECT
public:
    /// The panel over `session`, whose cluster it fits.
    explicit CalibrationPanel(Session* session, QWidget* parent = nullptr);

    /// Reads the runs of `path` (their cluster defaults to the session's); on error emits failed()
    /// and keeps the runs loaded before. Returns true when read.
    bool loadMeasurements(const QString& path);
    /// Fits the session's cluster to the loaded runs in the background (cancel() stops it).
    void fit();
    /// Stops a running fit; the best point so far is shown.
    void cancel();
    /// Writes the fitted cluster to `path` and opens it in the session. Returns an error message or
    /// an empty string.
    QString applyTo(const QString& path);

    /// True while a fit runs.
    bool busy() const { return jobs_.busy(); }
    /// The loaded runs.
    const std::vector<MeasuredRun>& runs() const { return runs_; }
    /// The last fit, if any.
    const std::optional<Calibration>& result() const { return result_; }
    /// The per-run table (run, measured, predicted before and after, errors).
    QTableWidget* runsTable() const { return runsTable_; }
    /// The scatter chart of predicted against measured.
    QChart* chart() const { return chart_; }

signals:
    /// Loading, fitting or applying failed; `message` names the file, field or run.
    void failed(const QString& message);

private:
    void chooseFile();
    void chooseTarget();
    void showRuns();
    void showChart();
    void updateButtons();

    Session* session_;
    JobRunner jobs_;
    std::vector<MeasuredRun> runs_;
    QString path_;
    std::optional<Calibration> result_;
    QLabel* status_ = nullptr;
    QPushButton* fit_ = nullptr;
    QComboBox* scope_ = nullptr;   ///< which parameters the fit moves (calibrate()'s `fit`)
    QPushButton* cancel_ = nullptr;
    QPushButton* apply_ = nullptr;
    QTableWidget* runsTable_ = nullptr;
    QTableWidget* parameters_ = nullptr;
    QChart* chart_ = nullptr;
};

} // namespace shardscope::ui
