#include "main_window.h"

#include "engine/cost/cost_model.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

#include <QHeaderView>
#include <QLabel>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Shardscope"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    summary_ = new QLabel(tr("No model loaded."), central);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    ops_ = new QTableWidget(0, 6, central);
    ops_->setHorizontalHeaderLabels({tr("Op"), tr("Kind"), tr("Strategy"), tr("Compute"), tr("Communication"),
                                     tr("Memory")});
    ops_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    ops_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    ops_->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(summary_);
    layout->addWidget(ops_, 1);
    setCentralWidget(central);
    resize(1100, 700);
}

QString MainWindow::openScenario(const ScenarioRequest& request) {
    try {
        auto next = std::make_unique<Scenario>(loadScenario(request));
        const CostModel model(next->graph, next->cluster, next->plan.mesh, next->plan.settings);
        auto e = evaluate(model, next->plan);
        scenario_ = std::move(next);
        evaluation_ = std::move(e);
    } catch (const InputError& e) {
        return q(e.what());
    }
    showEvaluation();
    return {};
}

void MainWindow::showEvaluation() {
    const Evaluation& e = *evaluation_;
    const Graph& g = scenario_->graph;
    setWindowTitle(tr("Shardscope - %1 on %2").arg(q(g.name), q(scenario_->cluster.name)));
    QString text = tr("%1: %2 parameters on %3 x %4, mesh %5, strategy %6\n")
                       .arg(q(g.name), q(formatCount(e.paramsTotal)), QString::number(e.devices),
                            q(scenario_->cluster.device.name), q(e.mesh.toString()), q(e.planName));
    text += tr("Step time %1 = compute %2 + communication %3 + optimizer %4\n")
                .arg(q(formatSeconds(e.stepTime)), q(formatSeconds(e.computeTime)), q(formatSeconds(e.commTime)),
                     q(formatSeconds(e.optimizerTime)));
    text += tr("Peak memory %1 of %2 per device").arg(q(formatBytes(e.peakMemory)), q(formatBytes(e.memoryCapacity)));
    if (!e.feasible)
        text += tr("\nDoes not fit: %1").arg(q(e.overflow));
    summary_->setText(text);
    summary_->setWordWrap(true);
    ops_->setRowCount(static_cast<int>(e.perOp.size()));
    for (std::size_t i = 0; i < e.perOp.size(); ++i) {
        const OpReport& r = e.perOp[i];
        const Op& op = g.op(r.op);
        const QStringList cells{q(op.name),
                                q(std::string(opKindName(op.kind))),
                                q(r.strategy),
                                q(formatSeconds(r.computeTime)),
                                q(formatSeconds(r.commTime)),
                                q(formatBytes(r.memory.sum()))};
        for (int c = 0; c < cells.size(); ++c)
            ops_->setItem(static_cast<int>(i), c, new QTableWidgetItem(cells[c]));
    }
    statusBar()->showMessage(tr("Step %1 | peak %2 | %3")
                                 .arg(q(formatSeconds(e.stepTime)), q(formatBytes(e.peakMemory)),
                                      e.feasible ? tr("fits") : tr("out of memory")));
}

} // namespace shardscope::ui
