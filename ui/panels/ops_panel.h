#pragma once
// Every op in a sortable, filterable table; selecting a row selects the op everywhere.

#include "session/session.h"

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace shardscope::ui {

class OpsModel;

class OpsPanel final : public QWidget {
    Q_OBJECT
public:
    /// A table of `session`'s ops.
    explicit OpsPanel(Session* session, QWidget* parent = nullptr);
    /// The model behind the table (for tests).
    OpsModel* model() const { return model_; }

private:
    void followSelection();

    Session* session_;
    OpsModel* model_ = nullptr;
    QSortFilterProxyModel* filtered_ = nullptr;
    QTableView* table_ = nullptr;
    QLineEdit* filter_ = nullptr;
    bool selecting_ = false;
};

} // namespace shardscope::ui
