#include "tactics_model.h"

#include "util/qt_text.h"

#include <QBrush>
#include <QColor>

namespace shardscope::ui {

TacticsModel::TacticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TacticsModel::setTactics(std::vector<shardscope::Tactic> tactics, std::shared_ptr<const TacticRun> run) {
    beginResetModel();
    tactics_ = std::move(tactics);
    // The figures belong to these tactics only if the run applied exactly them.
    run_ = run && run->plan.tactics == tactics_ ? std::move(run) : nullptr;
    endResetModel();
}

const TacticStep* TacticsModel::step(int row) const {
    return run_ && std::size_t(row) < run_->stages.size() ? &run_->stages[std::size_t(row)].step : nullptr;
}

int TacticsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(tactics_.size());
}

int TacticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TacticsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int row = index.row();
    const TacticStep* s = step(row);
    if (role == StepRole)
        return s != nullptr;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Number:
            return row + 1;
        case Tactic:
            return q(tactics_[std::size_t(row)].toString());
        case StepTime:
            return s ? seconds(s->stepTime) : QVariant();
        case PeakMemory:
            return s ? QVariant(bytes(s->peakMemory) + (s->feasible ? QString() : tr(" (does not fit)"))) : QVariant();
        case Collectives: {
            if (!s)
                return {};
            QStringList parts;
            for (const auto& [kind, n] : s->collectivesAdded)
                parts << QStringLiteral("%1%2 %3").arg(n > 0 ? QStringLiteral("+") : QString()).arg(n).arg(q(kind));
            return parts.isEmpty() ? tr("none") : parts.join(QStringLiteral(", "));
        }
        case Conflicts:
            return s ? QVariant(int(s->conflicts.size())) : QVariant();
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && s) {
        QStringList lines;
        for (const std::string& c : s->conflicts)
            lines << tr("conflict: %1").arg(q(c));
        for (const std::string& n : s->notes)
            lines << q(n);
        return lines.join(QLatin1Char('\n'));
    }
    if (role == Qt::ForegroundRole && s && ((index.column() == Conflicts && !s->conflicts.empty()) ||
                                            (index.column() == PeakMemory && !s->feasible)))
        return QBrush(QColor(176, 0, 32));
    if (role == Qt::TextAlignmentRole && index.column() >= StepTime && index.column() != Collectives)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TacticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Number:
        return tr("#");
    case Tactic:
        return tr("Tactic");
    case StepTime:
        return tr("Step time");
    case PeakMemory:
        return tr("Peak memory");
    case Collectives:
        return tr("Collectives added");
    case Conflicts:
        return tr("Conflicts");
    default:
        return {};
    }
}

} // namespace shardscope::ui
