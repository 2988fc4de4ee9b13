#pragma once
// The inspector's what-if table: every strategy the selected op could take, with the plan's step
// time and peak memory if it did, and the change from now.

#include "engine/evaluation/what_if.h"

#include <QAbstractTableModel>

namespace shardscope::ui {

class AlternativesModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Strategy, StepTime, StepDelta, PeakMemory, MemoryDelta, Fits, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, ///< numbers for numeric columns
        CurrentRole,                 ///< true on the plan's own strategy
    };

    /// An empty table.
    explicit AlternativesModel(QObject* parent = nullptr);
    /// Shows `alternatives` measured against `stepTime` and `peakMemory` (the plan's own; the step as the
    /// search's objective, Evaluation::objective, which the alternatives' are).
    void setAlternatives(std::vector<WhatIf> alternatives, double stepTime, double peakMemory);
    /// The alternative of source row `row`.
    const WhatIf& alternative(int row) const { return rows_[static_cast<std::size_t>(row)]; }

    /// Rows: one per strategy.
    int rowCount(const QModelIndex& parent = {}) const final;
    /// Columns: see Columns.
    int columnCount(const QModelIndex& parent = {}) const final;
    /// Display, sort, font and current-row data.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    /// Column titles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    std::vector<WhatIf> rows_;
    double stepTime_ = 0;
    double peakMemory_ = 0;
};

} // namespace shardscope::ui
