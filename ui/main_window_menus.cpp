// The main window's menus and shortcuts.

#include "main_window.h"

#include "dialogs/open_cluster_dialog.h"
#include "dialogs/plan_export_dialog.h"
#include "dialogs/open_model_dialog.h"
#include "cluster/cluster_view.h"
#include "export/view_export.h"
#include "graph/graph_view.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "util/qt_text.h"

#include "engine/plans/baselines.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

namespace shardscope::ui {

namespace {

QAction* menuAction(QMenu* menu, const QString& text, const QKeySequence& key, const QString& tip = {}) {
    QAction* a = menu->addAction(text);
    if (!key.isEmpty())
        a->setShortcut(key);
    a->setStatusTip(tip);
    return a;
}

} // namespace

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    connect(menuAction(file, tr("Open &Model..."), QKeySequence::Open, tr("A built-in model, or a model file")),
            &QAction::triggered, this, [this] {
                const QString current = session_.loaded() && session_.state().problem->source.builder
                                            ? q(session_.state().problem->source.request.spec)
                                            : QStringLiteral("gpt2-small");
                OpenModelDialog dialog(current, this);
                if (dialog.exec() != QDialog::Accepted)
                    return;
                const ModelRequest request = dialog.request();
                session_.loads().openModel(request);
                if (QFileInfo::exists(q(request.spec))) {
                    recent_.add(q(request.spec));
                    rebuildRecentMenu();
                }
            });
    connect(menuAction(file, tr("Open &Cluster..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)),
            &QAction::triggered, this, [this] {
                const auto problem = session_.state().problem;
                OpenClusterDialog dialog(problem ? q(problem->clusterSpec) : QStringLiteral("dgx-a100"),
                                         problem ? problem->nodes.value_or(1) : 1, this);
                if (dialog.exec() == QDialog::Accepted)
                    session_.loads().openCluster(dialog.spec(), dialog.nodes());
            });
    connect(menuAction(file, tr("Open &Plan..."), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O)), &QAction::triggered,
            this, [this] {
                const QString path = QFileDialog::getOpenFileName(this, tr("Open Plan"), QString(),
                                                                  tr("Plans (*.plan.json *.json);;All files (*)"));
                if (!path.isEmpty())
                    openFile(path);
            });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    connect(menuAction(file, tr("&Save Plan"), QKeySequence::Save), &QAction::triggered, this, &MainWindow::savePlan);
    connect(menuAction(file, tr("Save Plan &As..."), QKeySequence::SaveAs), &QAction::triggered, this,
            &MainWindow::savePlanAs);
    connect(menuAction(file, tr("Export Plan for a &Framework..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                       tr("Megatron-LM arguments, torchtitan TOML, DeepSpeed config, a JAX or PyTorch DTensor module")),
            &QAction::triggered, this, &MainWindow::exportPlanForFramework);
    createExportMenu(file);
    file->addSeparator();
    connect(menuAction(file, tr("&Quit"), QKeySequence::Quit), &QAction::triggered, this, &MainWindow::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = session_.undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = session_.undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    connect(menuAction(edit, tr("&Find Op..."), QKeySequence::Find), &QAction::triggered, graph_, &GraphView::focusFind);
    connect(menuAction(edit, tr("&Lock or Unlock Selected Op"), QKeySequence(Qt::CTRL | Qt::Key_L)), &QAction::triggered,
            this, [this] {
                if (const auto op = session_.selectedOp())
                    session_.setLocked(*op, !session_.state().plan.ops[op->index()].locked);
            });
    connect(menuAction(edit, tr("Lock or Unlock the &Stage Cut"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)),
            &QAction::triggered, this, [this] {
                if (session_.loaded())
                    session_.setStageCutLocked(!session_.state().plan.pipeline.locked);
            });

    QMenu* search = menuBar()->addMenu(tr("&Search"));
    connect(menuAction(search, tr("&Run Search"), QKeySequence(Qt::Key_F5)), &QAction::triggered, this,
            [this] { session_.search().run(false); });
    connect(menuAction(search, tr("Re-search Around &Locks"), QKeySequence(Qt::SHIFT | Qt::Key_F5)),
            &QAction::triggered, this, [this] { session_.search().run(true); });
    connect(menuAction(search, tr("&Cancel"), QKeySequence(Qt::Key_Escape)), &QAction::triggered, &session_,
            &Session::cancel);
    search->addSeparator();
    connect(menuAction(search, tr("Apply &Tactics"), QKeySequence(Qt::CTRL | Qt::Key_T),
                      tr("Build the plan from the tactic script, step by step")),
            &QAction::triggered, &session_.tactics(), &TacticService::run);
    connect(menuAction(search, tr("Open Tactic Script..."), {}), &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Tactic Script"), QString(),
                                                          tr("Tactic scripts (*.tactics.json *.json)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(menuAction(search, tr("Save Tactic Script..."), {}), &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Save Tactic Script"), QStringLiteral("plan.tactics.json"),
                                                    tr("Tactic scripts (*.tactics.json)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QStringLiteral(".json")))
            path += QStringLiteral(".tactics.json");
        if (const QString error = session_.tactics().save(path); !error.isEmpty())
            showError(error);
    });
    search->addSeparator();
    QMenu* baselines = search->addMenu(tr("Use &Baseline"));
    for (const BaselineEntry& entry : baselineRegistry()) {
        QAction* action = baselines->addAction(q(entry.spec));
        action->setStatusTip(q(entry.description));
        const std::string spec = entry.spec;
        connect(action, &QAction::triggered, this, [this, spec] { session_.applyBaseline(spec); });
    }
    connect(menuAction(search, tr("Compare with &Baseline"), QKeySequence(Qt::CTRL | Qt::Key_B),
                      tr("Step-time change against the best named baseline on this mesh and settings")),
            &QAction::triggered, &session_.compare(), &CompareService::withBaselines);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    connect(menuAction(view, tr("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_0)), &QAction::triggered, graph_,
            &GraphView::fitToWindow);
    QAction* zoomIn = menuAction(view, tr("Zoom &In"), QKeySequence::ZoomIn);
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    connect(zoomIn, &QAction::triggered, graph_, &GraphView::zoomIn);
    connect(menuAction(view, tr("Zoom &Out"), QKeySequence::ZoomOut), &QAction::triggered, graph_, &GraphView::zoomOut);
    QAction* expand = menuAction(view, tr("&Expand Repeated Blocks"), QKeySequence(Qt::CTRL | Qt::Key_E));
    expand->setCheckable(true);
    connect(expand, &QAction::toggled, graph_, &GraphView::setExpanded);
    connect(&session_, &Session::problemChanged, this, [this, expand] { expand->setChecked(graph_->expanded()); });
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    for (QToolBar* bar : findChildren<QToolBar*>())
        view->addAction(bar->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    connect(menuAction(help, tr("&Keyboard Shortcuts"), QKeySequence::HelpContents), &QAction::triggered, this,
            &MainWindow::showShortcuts);
    connect(menuAction(help, tr("&About Shardscope"), {}), &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Shardscope"),
                           tr("<b>Shardscope</b> %1<br>A workbench for parallelizing neural-network training: "
                              "PaSE's exact dynamic programming, TAPAS's folding of repeated layers, and a step "
                              "simulator.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::exportPlanForFramework() {
    if (!session_.loaded())
        return;
    const PlanState& state = session_.state();
    const Problem& problem = *state.problem;
    std::optional<ExportBatch> batch;
    if (const auto& builder = problem.source.builder)
        batch = ExportBatch{builder->params.batch, builder->params.seq};
    PlanExportDialog dialog(*problem.graph, state.plan, batch, q(problem.graph->name), this);
    dialog.exec();
}

void MainWindow::createExportMenu(QMenu* file) {
    QMenu* menu = file->addMenu(tr("&Export"));
    // Asks for a file name with `suffix` and runs `write` on it; errors open the error dialog.
    auto exporter = [this](const QString& title, const QString& suffix, std::function<QString(const QString&)> write) {
        return [this, title, suffix, write] {
            if (!session_.loaded())
                return;
            const QString base = q(session_.state().problem->graph->name);
            QString path = QFileDialog::getSaveFileName(this, title, base + suffix,
                                                        tr("%1 (*%2)").arg(title, suffix));
            if (path.isEmpty())
                return;
            if (!path.endsWith(suffix))
                path += suffix;
            const QString error = write(path);
            if (!error.isEmpty())
                showError(error);
            else
                statusBar()->showMessage(tr("Exported %1").arg(path), 8000);
        };
    };
    connect(menuAction(menu, tr("Trace for &Perfetto (JSON)..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T)),
            &QAction::triggered, this,
            exporter(tr("Trace"), QStringLiteral(".trace.json"), [this](const QString& p) { return exportTrace(session_, p); }));
    connect(menuAction(menu, tr("&Graph as SVG..."), {}), &QAction::triggered, this,
            exporter(tr("Graph SVG"), QStringLiteral(".graph.svg"),
                     [this](const QString& p) { return exportSceneSvg(*graph_->scene(), p, tr("Model graph")); }));
    connect(menuAction(menu, tr("Graph as P&NG..."), {}), &QAction::triggered, this,
            exporter(tr("Graph PNG"), QStringLiteral(".graph.png"),
                     [this](const QString& p) { return exportScenePng(*graph_->scene(), p); }));
    connect(menuAction(menu, tr("&Cluster as SVG..."), {}), &QAction::triggered, this,
            exporter(tr("Cluster SVG"), QStringLiteral(".cluster.svg"),
                     [this](const QString& p) { return exportSceneSvg(*cluster_->scene(), p, tr("Cluster traffic")); }));
    connect(menuAction(menu, tr("Cluster as PN&G..."), {}), &QAction::triggered, this,
            exporter(tr("Cluster PNG"), QStringLiteral(".cluster.png"),
                     [this](const QString& p) { return exportScenePng(*cluster_->scene(), p); }));
    connect(menuAction(menu, tr("&Timeline as SVG..."), {}), &QAction::triggered, this,
            exporter(tr("Timeline SVG"), QStringLiteral(".timeline.svg"), [this](const QString& p) {
                const TimelineView* view = timeline_->view();
                return exportPaintedSvg([view](QPainter& painter, const QSize& size) { view->render(painter, size); },
                                        view->viewport()->size(), p, tr("Simulated timeline"));
            }));
    connect(menuAction(menu, tr("Timeline as PNG..."), {}), &QAction::triggered, this,
            exporter(tr("Timeline PNG"), QStringLiteral(".timeline.png"),
                     [this](const QString& p) { return exportWidgetPng(*timeline_->view()->viewport(), p); }));
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList files = recent_.list();
    for (const QString& path : files)
        connect(recentMenu_->addAction(path), &QAction::triggered, this, [this, path] { openFile(path); });
    if (files.isEmpty())
        recentMenu_->addAction(tr("(none)"))->setEnabled(false);
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear")), &QAction::triggered, this, [this] {
        recent_.clear();
        rebuildRecentMenu();
    });
}

bool MainWindow::savePlanAs() {
    if (!session_.loaded())
        return false;
    const QString suggested = session_.planPath().isEmpty()
                                  ? q(session_.state().problem->graph->name) + QStringLiteral(".plan.json")
                                  : session_.planPath();
    QString path = QFileDialog::getSaveFileName(this, tr("Save Plan"), suggested, tr("Plans (*.plan.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QStringLiteral(".json")))
        path += QStringLiteral(".plan.json");
    const QString error = session_.loads().savePlan(path);
    if (!error.isEmpty()) {
        showError(error);
        return false;
    }
    recent_.add(path);
    rebuildRecentMenu();
    return true;
}

void MainWindow::showShortcuts() {
    QString rows;
    for (QAction* menu : menuBar()->actions())
        for (QAction* a : menu->menu()->actions())
            if (!a->shortcut().isEmpty())
                rows += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>")
                            .arg(a->text().remove(QLatin1Char('&')), a->shortcut().toString(QKeySequence::NativeText));
    rows += tr("<tr><td>Zoom around the cursor</td><td><b>mouse wheel</b></td></tr>"
               "<tr><td>Pan</td><td><b>drag</b></td></tr>"
               "<tr><td>Expand the repeated blocks</td><td><b>double-click the stack</b></td></tr>");
    QMessageBox::information(this, tr("Keyboard Shortcuts"), QStringLiteral("<table>") + rows + QStringLiteral("</table>"));
}

} // namespace shardscope::ui
