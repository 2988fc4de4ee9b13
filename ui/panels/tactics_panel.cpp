#include "tactics_panel.h"

#include "dialogs/tactic_dialog.h"
#include "models/tactics_model.h"
#include "util/qt_text.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QPushButton* button(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setToolTip(tip);
    return b;
}

} // namespace

TacticsPanel::TacticsPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    auto* add = button(tr("Add..."), tr("Append a tactic"), this);
    auto* edit = button(tr("Edit..."), tr("Change the selected tactic (double-click does the same)"), this);
    auto* remove = button(tr("Remove"), tr("Remove the selected tactic"), this);
    auto* up = button(tr("Up"), tr("Apply the selected tactic earlier"), this);
    auto* down = button(tr("Down"), tr("Apply the selected tactic later"), this);
    run_ = button(tr("Apply"), tr("Apply the tactics in order on the plan's mesh (Ctrl+T)"), this);
    for (QPushButton* b : {add, edit, remove, up, down})
        bar->addWidget(b);
    bar->addStretch(1);
    bar->addWidget(run_);
    model_ = new TacticsModel(this);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(TacticsModel::Collectives, QHeaderView::Stretch);
    details_ = new QLabel(this);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setText(tr("Tactics build a plan step by step (PartIR): each fixes some shardings and propagation "
                         "settles what follows. Add tactics, or open a *.tactics.json; Apply shows what each step "
                         "buys. Select a step to see its plan; undecided ops are hatched in the graph."));
    layout->addLayout(bar);
    layout->addWidget(table_, 1);
    layout->addWidget(details_);

    connect(add, &QPushButton::clicked, this, &TacticsPanel::addTactic);
    connect(edit, &QPushButton::clicked, this, &TacticsPanel::editTactic);
    connect(remove, &QPushButton::clicked, this, &TacticsPanel::removeTactic);
    connect(up, &QPushButton::clicked, this, [this] { moveTactic(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveTactic(1); });
    connect(run_, &QPushButton::clicked, &session_->tactics(), &TacticService::run);
    connect(table_, &QTableView::doubleClicked, this, &TacticsPanel::editTactic);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        showDetails();
        if (index.isValid() && model_->data(model_->index(index.row(), 0), TacticsModel::StepRole).toBool())
            session_->tactics().showStep(index.row());
    });
    connect(session_, &Session::tacticsChanged, this, &TacticsPanel::refresh);
    connect(session_, &Session::tacticRunChanged, this, &TacticsPanel::refresh);
    refresh();
}

int TacticsPanel::selectedRow() const {
    const QModelIndex index = table_->selectionModel()->currentIndex();
    return index.isValid() ? index.row() : -1;
}

void TacticsPanel::refresh() {
    const int row = selectedRow();
    model_->setTactics(session_->tactics().script(), session_->tactics().lastRun());
    if (row >= 0 && row < model_->rowCount()) {
        const QSignalBlocker block(table_->selectionModel());
        table_->selectionModel()->setCurrentIndex(model_->index(row, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    showDetails();
}

void TacticsPanel::showDetails() {
    const int row = selectedRow();
    const auto run = session_->tactics().lastRun();
    if (row < 0 || !run || std::size_t(row) >= run->stages.size() || !model_->data(model_->index(row, 0), TacticsModel::StepRole).toBool())
        return;
    const TacticStep& s = run->stages[std::size_t(row)].step;
    QStringList lines{tr("Step %1, %2: %3 per step (simulated), %4 analytic; peak %5")
                          .arg(row + 1)
                          .arg(q(s.tactic), seconds(s.stepTime), seconds(s.analyticStepTime), bytes(s.peakMemory))};
    for (const std::string& c : s.conflicts)
        lines << tr("Conflict: %1").arg(q(c));
    for (const std::string& n : s.notes)
        lines << q(n);
    details_->setText(lines.join(QLatin1Char('\n')));
}

void TacticsPanel::addTactic() {
    Tactic t;
    t.kind = session_->tactics().script().empty() ? TacticKind::Batch : TacticKind::Megatron;
    TacticDialog dialog(t, session_->state().plan.mesh, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    std::vector<Tactic> next = session_->tactics().script();
    next.push_back(dialog.tactic());
    session_->tactics().setScript(std::move(next));
}

void TacticsPanel::editTactic() {
    const int row = selectedRow();
    if (row < 0)
        return;
    TacticDialog dialog(session_->tactics().script()[std::size_t(row)], session_->state().plan.mesh, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    std::vector<Tactic> next = session_->tactics().script();
    next[std::size_t(row)] = dialog.tactic();
    session_->tactics().setScript(std::move(next));
}

void TacticsPanel::removeTactic() {
    const int row = selectedRow();
    if (row < 0)
        return;
    std::vector<Tactic> next = session_->tactics().script();
    next.erase(next.begin() + row);
    session_->tactics().setScript(std::move(next));
}

void TacticsPanel::moveTactic(int by) {
    const int row = selectedRow();
    const int to = row + by;
    if (row < 0 || to < 0 || to >= int(session_->tactics().script().size()))
        return;
    std::vector<Tactic> next = session_->tactics().script();
    std::swap(next[std::size_t(row)], next[std::size_t(to)]);
    session_->tactics().setScript(std::move(next));
    table_->selectionModel()->setCurrentIndex(model_->index(to, 0),
                                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

} // namespace shardscope::ui
