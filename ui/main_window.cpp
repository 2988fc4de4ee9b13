#include "main_window.h"

#include "calibration/calibration_panel.h"
#include "cluster/cluster_view.h"
#include "compare/compare_view.h"
#include "graph/graph_view.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "panels/inspector_panel.h"
#include "panels/ops_panel.h"
#include "panels/stages_panel.h"
#include "panels/search_bar.h"
#include "panels/tactics_panel.h"
#include "util/pipeline_text.h"
#include "util/qt_text.h"

#include "engine/io/file_kind.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

namespace shardscope::ui {

MainWindow::MainWindow(QWidget* parent, int searchThreads)
    : QMainWindow(parent), session_(nullptr, searchThreads), autosave_(&session_, autosaveDirectory()) {
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    graph_ = new GraphView(&session_, this);
    setCentralWidget(graph_);

    inspector_ = new InspectorPanel(&session_, this);
    cluster_ = new ClusterView(&session_, this);
    ops_ = new OpsPanel(&session_, this);
    stages_ = new StagesPanel(&session_, this);
    timeline_ = new TimelinePanel(&session_, this);
    compare_ = new CompareView(&session_, this);
    tactics_ = new TacticsPanel(&session_, this);
    calibration_ = new CalibrationPanel(&session_, this);
    QDockWidget* inspectorDock = addPanel(inspector_, tr("Inspector"), QStringLiteral("inspector"), Qt::RightDockWidgetArea);
    QDockWidget* clusterDock = addPanel(cluster_, tr("Cluster"), QStringLiteral("cluster"), Qt::RightDockWidgetArea);
    QDockWidget* opsDock = addPanel(ops_, tr("Ops"), QStringLiteral("ops"), Qt::BottomDockWidgetArea);
    QDockWidget* timelineDock = addPanel(timeline_, tr("Timeline"), QStringLiteral("timeline"), Qt::BottomDockWidgetArea);
    QDockWidget* stagesDock = addPanel(stages_, tr("Stages"), QStringLiteral("stages"), Qt::BottomDockWidgetArea);
    QDockWidget* compareDock = addPanel(compare_, tr("Compare"), QStringLiteral("compare"), Qt::BottomDockWidgetArea);
    QDockWidget* tacticsDock = addPanel(tactics_, tr("Tactics"), QStringLiteral("tactics"), Qt::RightDockWidgetArea);
    QDockWidget* calibrationDock =
        addPanel(calibration_, tr("Calibration"), QStringLiteral("calibration"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(inspectorDock, clusterDock);
    tabifyDockWidget(clusterDock, tacticsDock);
    tabifyDockWidget(opsDock, timelineDock);
    tabifyDockWidget(timelineDock, stagesDock);
    tabifyDockWidget(stagesDock, compareDock);
    tabifyDockWidget(compareDock, calibrationDock);
    inspectorDock->raise();
    timelineDock->raise();
    // Panels behind another tab defer their work until they are brought forward.
    cluster_->setActive(false);
    compare_->setActive(false);
    connect(clusterDock, &QDockWidget::visibilityChanged, cluster_, &ClusterView::setActive);
    connect(compareDock, &QDockWidget::visibilityChanged, compare_, &CompareView::setActive);

    searchBar_ = new SearchBar(&session_, this);
    addToolBar(Qt::TopToolBarArea, searchBar_);

    stepLabel_ = new QLabel(this);
    stepLabel_->setObjectName(QStringLiteral("stepLabel"));
    memoryLabel_ = new QLabel(this);
    fitLabel_ = new QLabel(this);
    pipelineLabel_ = new QLabel(this);
    pipelineLabel_->setObjectName(QStringLiteral("pipelineLabel"));
    compareLabel_ = new QLabel(this);
    statusBar()->addPermanentWidget(compareLabel_);
    statusBar()->addPermanentWidget(pipelineLabel_);
    statusBar()->addPermanentWidget(stepLabel_);
    statusBar()->addPermanentWidget(memoryLabel_);
    statusBar()->addPermanentWidget(fitLabel_);

    createMenus();
    connect(&session_, &Session::planChanged, this, [this] {
        compareLabel_->clear();
        updateStatus();
        updateTitle();
    });
    connect(&session_, &Session::simulationChanged, this, &MainWindow::updateStatus);
    connect(&session_, &Session::failed, this, &MainWindow::showError);
    connect(calibration_, &CalibrationPanel::failed, this, &MainWindow::showError);
    connect(&autosave_, &Autosave::failed, this, [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    connect(&session_, &Session::message, this, [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(&session_, &Session::comparison, this, [this](const QString& name, double base, double plan) {
        const double change = (plan - base) / base * 100;
        compareLabel_->setText(tr("vs %1: %2%3% (%4 vs %5)")
                                   .arg(name, change > 0 ? QStringLiteral("+") : QString())
                                   .arg(change, 0, 'f', 1)
                                   .arg(seconds(plan), seconds(base)));
        compareLabel_->setStyleSheet(change <= 0 ? QStringLiteral("color: #106010") : QStringLiteral("color: #b00020"));
    });
    connect(session_.undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    resize(1500, 950);
    const QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateStatus();
    updateTitle();
}

QDockWidget* MainWindow::addPanel(QWidget* panel, const QString& title, const QString& name, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name + QStringLiteral("Dock"));
    dock->setWidget(panel);
    addDockWidget(area, dock);
    return dock;
}

bool MainWindow::settled() const {
    return !session_.busy() && !graph_->layoutBusy() && !timeline_->view()->busy() && !compare_->busy() &&
           !calibration_->busy();
}

QWidget* MainWindow::showPanel(const QString& name) {
    if (name == QStringLiteral("graph"))
        return graph_;
    auto* dock = findChild<QDockWidget*>(name + QStringLiteral("Dock"));
    if (!dock)
        return nullptr;
    dock->show();
    dock->raise();
    return dock->widget();
}

void MainWindow::openFile(const QString& path) {
    switch (sniffFileKind(path.toStdString())) {
    case FileKind::Model: {
        ModelRequest request;
        request.spec = path.toStdString();
        session_.loads().openModel(request);
        break;
    }
    case FileKind::Cluster:
        session_.loads().openCluster(path.toStdString(), std::nullopt);
        break;
    case FileKind::Plan:
        session_.loads().openPlan(path);
        break;
    case FileKind::Tactics:
        session_.tactics().open(path);
        showPanel(QStringLiteral("tactics"));
        break;
    case FileKind::Unknown:
        showError(tr("%1: not a model, cluster, plan or tactic script this program reads (no known \"format\" field, "
                     "not a Hugging Face config.json, not .onnx)")
                      .arg(path));
        return;
    }
    recent_.add(path);
    rebuildRecentMenu();
}

bool MainWindow::savePlan() {
    if (session_.planPath().isEmpty())
        return savePlanAs();
    const QString error = session_.loads().savePlan(session_.planPath());
    if (!error.isEmpty()) {
        showError(error);
        return false;
    }
    recent_.add(session_.planPath());
    rebuildRecentMenu();
    return true;
}

bool MainWindow::offerRecovery() {
    const std::optional<RecoverablePlan> plan = findRecoverablePlan(autosaveDirectory());
    if (!plan)
        return false;
    QMessageBox box(QMessageBox::Question, tr("Recover unsaved edits"),
                    tr("Shardscope ended without saving edits to a plan of %1 (copy autosaved %2%3). Reopen them?")
                        .arg(plan->description, QLocale().toString(plan->savedAt.toLocalTime(), QLocale::ShortFormat),
                             plan->originalPlan.isEmpty() ? QString() : tr(", from %1").arg(plan->originalPlan)),
                    QMessageBox::NoButton, this);
    QPushButton* reopen = box.addButton(tr("Reopen"), QMessageBox::AcceptRole);
    QPushButton* drop = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("Not Now"), QMessageBox::RejectRole);
    box.setDefaultButton(reopen);
    box.exec();
    if (box.clickedButton() == drop)
        removeRecoverablePlan(*plan);
    if (box.clickedButton() != reopen)
        return false;
    recover(*plan);
    return true;
}

void MainWindow::recover(const RecoverablePlan& plan) {
    session_.loads().recoverScenario(autosave_.adopt(plan), plan.originalPlan);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (session_.loaded() && !session_.undoStack()->isClean()) {
        const auto answer = QMessageBox::question(this, tr("Shardscope"), tr("The plan has unsaved edits. Save them?"),
                                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel || (answer == QMessageBox::Save && !savePlan())) {
            event->ignore();
            return;
        }
    }
    // Saved, or dropped on purpose: nothing to recover next time.
    autosave_.discard();
    session_.cancel();
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            openFile(url.toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::showError(const QString& message) {
    // Not modal-blocking: the event loop (and any search) keeps running while it is shown.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Shardscope"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("errorDialog"));
    box->open();
    statusBar()->showMessage(message, 10000);
}

void MainWindow::updateStatus() {
    const PlanState& s = session_.state();
    if (!s.evaluation) {
        stepLabel_->setText(tr("No model loaded"));
        memoryLabel_->clear();
        fitLabel_->clear();
        pipelineLabel_->clear();
        return;
    }
    const Evaluation& e = *s.evaluation;
    // The plan's step time is its simulated step; until the simulation arrives, the analytic
    // estimate, named so.
    const auto sim = session_.simulation().result();
    stepLabel_->setText(sim ? tr("Step %1 (simulated)").arg(seconds(sim->stepTime))
                            : tr("Step ~%1 (estimate; simulating)").arg(seconds(e.stepTime)));
    stepLabel_->setToolTip(tr("analytic estimate %1 = compute %2 + slowdown beside communication %3 + exposed "
                              "communication %4 (of %5) + optimizer %6")
                               .arg(seconds(e.stepTime), seconds(e.computeTime), seconds(e.slowdownTime),
                                    seconds(e.exposedCommTime), seconds(e.commTime), seconds(e.optimizerTime)));
    if (e.pipeline.active())
        stepLabel_->setToolTip(stepLabel_->toolTip() + tr(" + pipeline bubble %1").arg(seconds(e.bubbleTime)));
    pipelineLabel_->setText(pipelineSummary(e.pipeline));
    pipelineLabel_->setToolTip(stageTable(e.pipeline));
    memoryLabel_->setText(tr("Peak %1 of %2").arg(bytes(e.peakMemory), bytes(e.memoryCapacity)));
    fitLabel_->setText(e.feasible ? tr("fits") : tr("OUT OF MEMORY"));
    fitLabel_->setToolTip(e.feasible ? QString() : q(e.overflow));
    fitLabel_->setStyleSheet(e.feasible ? QStringLiteral("color: #106010") : QStringLiteral("color: #b00020; font-weight: bold"));
}

void MainWindow::updateTitle() {
    const PlanState& s = session_.state();
    if (!s.problem) {
        setWindowTitle(tr("Shardscope"));
        return;
    }
    QString title = tr("%1 on %2 (%3 x %4) - %5")
                        .arg(q(s.problem->graph->name), q(s.problem->cluster->name))
                        .arg(s.problem->cluster->deviceCount())
                        .arg(q(s.problem->cluster->device.name), q(s.plan.mesh.toString()));
    if (!session_.planPath().isEmpty())
        title += QStringLiteral(" - ") + QFileInfo(session_.planPath()).fileName();
    setWindowTitle(title + QStringLiteral("[*] - Shardscope"));
    setWindowModified(!session_.undoStack()->isClean());
}

} // namespace shardscope::ui
