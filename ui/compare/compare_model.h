#pragma once
// The compare table: each compared plan's step time and its parts, peak memory and whether it fits.

#include "comparison.h"

#include <QAbstractTableModel>

namespace shardscope::ui {

class CompareModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Name, Mesh, StepTime, Compute, ExposedComm, Optimizer, Bubble, PeakMemory, Fits, ColumnCount };
    enum Roles { SortRole = Qt::UserRole + 1 };

    /// An empty table.
    explicit CompareModel(QObject* parent = nullptr);
    /// Shows `rows`; resets the model.
    void setRows(std::vector<ComparedPlan> rows);
    /// The compared plans.
    const std::vector<ComparedPlan>& rows() const { return rows_; }

    /// Rows: one per plan.
    int rowCount(const QModelIndex& parent = {}) const final;
    /// Columns: see Columns.
    int columnCount(const QModelIndex& parent = {}) const final;
    /// Display, sort and colour data.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    /// Column titles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    std::vector<ComparedPlan> rows_;
};

} // namespace shardscope::ui
