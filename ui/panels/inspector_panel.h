#pragma once
// The inspector: the selected op's shapes, sharding rule and strategy with its cost breakdown, and
// every alternative strategy with what the plan's step time and memory would become (what-if).
// Choosing an alternative overrides the op; the lock keeps it through searches.

#include "session/session.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTreeWidget;

namespace shardscope::ui {

class AlternativesModel;

class InspectorPanel final : public QWidget {
    Q_OBJECT
public:
    /// An inspector of `session`'s selected op.
    explicit InspectorPanel(Session* session, QWidget* parent = nullptr);
    /// The what-if table's model (for tests).
    AlternativesModel* alternatives() const { return alternatives_; }
    /// Overrides the selected op with the alternative in (sorted) row `row` of the table.
    void applyAlternative(int row);
    /// The heading: the inspected op's name, or a hint when nothing is selected.
    QString heading() const;
    /// The details shown under the heading (rich text): shapes, rule, strategy, why.
    QString details() const;

private:
    void refresh();

    Session* session_;
    QLabel* title_ = nullptr;
    QLabel* details_ = nullptr;
    QCheckBox* lock_ = nullptr;
    QTreeWidget* breakdown_ = nullptr;
    AlternativesModel* alternatives_ = nullptr;
    QSortFilterProxyModel* sorted_ = nullptr;
    QTableView* table_ = nullptr;
    QPushButton* apply_ = nullptr;
    QPushButton* research_ = nullptr;
};

} // namespace shardscope::ui
