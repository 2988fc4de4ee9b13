#include "alternatives_model.h"

#include "util/qt_text.h"

#include <QFont>

namespace shardscope::ui {

namespace {

QString signedSeconds(double d) {
    if (d == 0)
        return QStringLiteral("0");
    return (d > 0 ? QStringLiteral("+") : QStringLiteral("-")) + seconds(std::abs(d));
}

QString signedBytes(double d) {
    if (d == 0)
        return QStringLiteral("0");
    return (d > 0 ? QStringLiteral("+") : QStringLiteral("-")) + bytes(std::abs(d));
}

} // namespace

AlternativesModel::AlternativesModel(QObject* parent) : QAbstractTableModel(parent) {}

void AlternativesModel::setAlternatives(std::vector<WhatIf> alternatives, double stepTime, double peakMemory) {
    beginResetModel();
    rows_ = std::move(alternatives);
    stepTime_ = stepTime;
    peakMemory_ = peakMemory;
    endResetModel();
}

int AlternativesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int AlternativesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AlternativesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const WhatIf& w = rows_[static_cast<std::size_t>(index.row())];
    const double dt = w.current ? 0 : w.stepTime - stepTime_;
    const double dm = w.current ? 0 : w.peakMemory - peakMemory_;
    if (role == CurrentRole)
        return w.current;
    if (role == SortRole) {
        switch (index.column()) {
        case StepTime:
        case StepDelta:
            return w.stepTime;
        case PeakMemory:
        case MemoryDelta:
            return w.peakMemory;
        case Fits:
            return w.feasible ? 1 : 0;
        default:
            return q(w.text);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Strategy:
            return QString(q(w.text) + (w.current ? tr(" (current)") : QString()));
        case StepTime:
            return seconds(w.stepTime);
        case StepDelta:
            return signedSeconds(dt);
        case PeakMemory:
            return bytes(w.peakMemory);
        case MemoryDelta:
            return signedBytes(dm);
        case Fits:
            return w.feasible ? tr("yes") : tr("no");
        default:
            return {};
        }
    }
    if (role == Qt::FontRole && w.current) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::TextAlignmentRole && index.column() != Strategy)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant AlternativesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Strategy:
        return tr("Strategy");
    case StepTime:
        return tr("Step (search's estimate)");
    case StepDelta:
        return tr("Change");
    case PeakMemory:
        return tr("Peak memory");
    case MemoryDelta:
        return tr("Change");
    case Fits:
        return tr("Fits");
    default:
        return {};
    }
}

} // namespace shardscope::ui
