#pragma once
// The compare panel: a table and stacked bar charts of step time (compute, exposed communication,
// optimizer) and peak memory for the baselines, the searched plan, every tactic step and the current
// plan; any row can
// be opened as the current plan (undoably). Plans are compared while the panel is active (seen).

#include "session/session.h"

#include <QWidget>

class QChart;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace shardscope::ui {

class CompareModel;

class CompareView final : public QWidget {
    Q_OBJECT
public:
    /// The panel over `session`.
    explicit CompareView(Session* session, QWidget* parent = nullptr);
    /// The table's model.
    CompareModel* model() const { return model_; }
    /// True while the plans are being costed and simulated.
    bool busy() const { return jobs_.busy(); }
    /// Makes the plan in (sorted) row `row` the current plan.
    void openRow(int row);

    /// Tells the panel whether the user can see it; while inactive it defers its work.
    void setActive(bool active);

private:
    void refresh();
    void showRows();

    Session* session_;
    JobRunner jobs_;
    CompareModel* model_ = nullptr;
    QSortFilterProxyModel* sorted_ = nullptr;
    QTableView* table_ = nullptr;
    QChart* timeChart_ = nullptr;
    QChart* memoryChart_ = nullptr;
    QLabel* status_ = nullptr;
    bool stale_ = true;
    bool active_ = true;
};

} // namespace shardscope::ui
