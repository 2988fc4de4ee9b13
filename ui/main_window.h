#pragma once
// The main window: for now a summary of the current plan's evaluation and its per-op breakdown.

#include "engine/cost/evaluation.h"
#include "engine/io/scenario.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QTableWidget;

namespace shardscope::ui {

/// Shows one scenario's evaluation. Bad input leaves the previous scenario in place and says why.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    /// An empty window; call openScenario() to load something.
    explicit MainWindow(QWidget* parent = nullptr);

    /// Loads and evaluates `request`. On bad input returns the message (and keeps what was shown);
    /// on success returns an empty string.
    QString openScenario(const ScenarioRequest& request);
    /// The evaluation shown, or null.
    std::shared_ptr<const Evaluation> evaluation() const { return evaluation_; }

private:
    void showEvaluation();

    std::unique_ptr<Scenario> scenario_;
    std::shared_ptr<const Evaluation> evaluation_;
    QLabel* summary_ = nullptr;
    QTableWidget* ops_ = nullptr;
};

} // namespace shardscope::ui
