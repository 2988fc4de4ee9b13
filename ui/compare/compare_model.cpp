#include "compare_model.h"

#include "util/qt_text.h"

#include <QBrush>
#include <QColor>

namespace shardscope::ui {

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::setRows(std::vector<ComparedPlan> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ComparedPlan& r = rows_[static_cast<std::size_t>(index.row())];
    if (role == SortRole) {
        switch (index.column()) {
        case StepTime:
            return r.stepTime;
        case Compute:
            return r.compute;
        case ExposedComm:
            return r.exposedComm;
        case Optimizer:
            return r.optimizer;
        case Bubble:
            return r.bubble;
        case PeakMemory:
            return r.peakMemory;
        case Fits:
            return r.feasible ? 1 : 0;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return q(r.name);
        case Mesh:
            return q(r.state.plan.mesh.toString());
        case StepTime:
            return seconds(r.stepTime);
        case Compute:
            return seconds(r.compute);
        case ExposedComm:
            return seconds(r.exposedComm);
        case Optimizer:
            return seconds(r.optimizer);
        case Bubble:
            return r.state.plan.pipeline.active() ? seconds(r.bubble) : QStringLiteral("-");
        case PeakMemory:
            return bytes(r.peakMemory);
        case Fits:
            return r.feasible ? tr("yes") : tr("no");
        default:
            return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Fits && !r.feasible)
        return QBrush(QColor(176, 0, 32));
    if (role == Qt::TextAlignmentRole && index.column() >= StepTime)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Plan");
    case Mesh:
        return tr("Mesh");
    case StepTime:
        return tr("Step time");
    case Compute:
        return tr("Compute");
    case ExposedComm:
        return tr("Exposed comm.");
    case Optimizer:
        return tr("Optimizer");
    case Bubble:
        return tr("Pipeline bubble");
    case PeakMemory:
        return tr("Peak memory");
    case Fits:
        return tr("Fits");
    default:
        return {};
    }
}

} // namespace shardscope::ui
