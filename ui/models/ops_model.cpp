#include "ops_model.h"

#include "util/qt_text.h"

namespace shardscope::ui {

OpsModel::OpsModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpsModel::setState(const PlanState& state) {
    beginResetModel();
    state_ = state;
    rows_.clear();
    rowOfOp_.clear();
    if (state_.problem) {
        rows_ = state_.problem->graph->topoOrder();
        rowOfOp_.assign(rows_.size(), -1);
        for (std::size_t r = 0; r < rows_.size(); ++r)
            rowOfOp_[rows_[r].index()] = static_cast<int>(r);
    }
    endResetModel();
}

int OpsModel::rowOf(OpId op) const {
    return op.valid() && op.index() < rowOfOp_.size() ? rowOfOp_[op.index()] : -1;
}

int OpsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

int OpsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OpsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const OpId o = rows_[static_cast<std::size_t>(index.row())];
    const Op& op = state_.problem->graph->op(o);
    const OpReport& r = state_.evaluation->perOp[o.index()];
    const bool locked = state_.plan.ops[o.index()].locked;
    if (role == OpIdRole)
        return o.value;
    if (role == SortRole) {
        switch (index.column()) {
        case Compute:
            return r.computeTime;
        case Communication:
            return r.commTime;
        case Memory:
            return r.memory.sum();
        case Locked:
            return locked ? 1 : 0;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return q(op.name);
        case Kind:
            return q(opKindName(op.kind));
        case Block:
            return q(op.block);
        case Strategy:
            return q(r.strategy);
        case Compute:
            return seconds(r.computeTime);
        case Communication:
            return seconds(r.commTime);
        case Memory:
            return bytes(r.memory.sum());
        case Locked:
            return locked ? tr("locked") : QString();
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Strategy)
        return tr("Rule %1").arg(q(op.rule.toString()));
    if (role == Qt::TextAlignmentRole && index.column() >= Compute && index.column() <= Memory)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant OpsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Op");
    case Kind:
        return tr("Kind");
    case Block:
        return tr("Block");
    case Strategy:
        return tr("Strategy");
    case Compute:
        return tr("Compute");
    case Communication:
        return tr("Communication");
    case Memory:
        return tr("Memory");
    case Locked:
        return tr("Lock");
    default:
        return {};
    }
}

} // namespace shardscope::ui
