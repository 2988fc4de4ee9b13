#pragma once
// Every op of the current plan as a table row: name, kind, block, strategy, compute,
// communication, memory and whether it is locked.

#include "session/plan_state.h"

#include <QAbstractTableModel>

namespace shardscope::ui {

class OpsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Name, Kind, Block, Strategy, Compute, Communication, Memory, Locked, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, ///< numbers for numeric columns, text otherwise
        OpIdRole,                    ///< the op's id (int)
    };

    /// An empty model.
    explicit OpsModel(QObject* parent = nullptr);
    /// Shows `state` (ops in topological order); resets the model.
    void setState(const PlanState& state);
    /// The row of `op`, or -1.
    int rowOf(OpId op) const;

    /// Rows: one per op.
    int rowCount(const QModelIndex& parent = {}) const final;
    /// Columns: see Columns.
    int columnCount(const QModelIndex& parent = {}) const final;
    /// Display, tool tip, sort and id data.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    /// Column titles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    PlanState state_;
    std::vector<OpId> rows_;
    std::vector<int> rowOfOp_;
};

} // namespace shardscope::ui
