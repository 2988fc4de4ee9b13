#pragma once
// The tactics panel's table: the script's tactics in order and, once run, each step's figures —
// step time, peak memory, the collectives it added, its conflicts.

#include "engine/tactics/tactic_runner.h"

#include <QAbstractTableModel>

namespace shardscope::ui {

class TacticsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Number, Tactic, StepTime, PeakMemory, Collectives, Conflicts, ColumnCount };
    enum Roles { StepRole = Qt::UserRole + 1 }; ///< true when the row has run figures

    /// An empty table.
    explicit TacticsModel(QObject* parent = nullptr);
    /// Shows `tactics` and, when `run` belongs to them, its figures; resets the model.
    void setTactics(std::vector<shardscope::Tactic> tactics, std::shared_ptr<const TacticRun> run);

    /// Rows: one per tactic.
    int rowCount(const QModelIndex& parent = {}) const final;
    /// Columns: see Columns.
    int columnCount(const QModelIndex& parent = {}) const final;
    /// Display, tooltip (notes and conflicts) and colour data.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    /// Column titles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    const TacticStep* step(int row) const;

    std::vector<shardscope::Tactic> tactics_;
    std::shared_ptr<const TacticRun> run_;
};

} // namespace shardscope::ui
