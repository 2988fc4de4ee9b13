// shardscope: the desktop workbench. Opens the window on the scenario given on the command line
// (default: gpt2-small on one DGX A100); --algo runs a search once it is loaded; --screenshot
// renders the window to a PNG when everything has settled, and exits; --measurements fits the
// cluster to a measurements file in the Calibration panel once loaded.

#include "calibration/calibration_panel.h"
#include "graph/graph_view.h"
#include "main_window.h"

#include "engine/util/error.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

namespace {

/// Loads the scenario, optionally searches, optionally takes the screenshot; exits on failure in
/// screenshot mode.
class Startup final : public QObject {
public:
    Startup(shardscope::ui::MainWindow* window, std::optional<shardscope::SearchAlgorithm> algorithm,
            std::optional<shardscope::Mesh> mesh, QString tactics, QString measurements, QString screenshot,
            QWidget* panel)
        : window_(window), algorithm_(std::move(algorithm)), mesh_(std::move(mesh)), tactics_(std::move(tactics)),
          measurements_(std::move(measurements)), screenshot_(std::move(screenshot)), panel_(panel ? panel : window) {
        auto* session = window_->session();
        connect(session, &shardscope::ui::Session::problemChanged, this, &Startup::loaded, Qt::SingleShotConnection);
        if (!screenshot_.isEmpty()) {
            auto fail = [](const QString& error) {
                std::fprintf(stderr, "shardscope: %s\n", error.toLocal8Bit().constData());
                QApplication::exit(2);
            };
            connect(session, &shardscope::ui::Session::failed, this, fail);
            connect(window->calibrationPanel(), &shardscope::ui::CalibrationPanel::failed, this, fail);
            clock_.start();
            connect(&poll_, &QTimer::timeout, this, &Startup::tryScreenshot);
            poll_.start(100);
        }
    }

private:
    void loaded() {
        auto* session = window_->session();
        if (!measurements_.isEmpty()) {
            auto* calibration = window_->calibrationPanel();
            if (calibration->loadMeasurements(measurements_))
                calibration->fit();
        }
        if (!tactics_.isEmpty()) {
            session->tactics().open(tactics_);
            session->tactics().run();
            searched_ = true;
            return;
        }
        if (!algorithm_) {
            searched_ = true;
            return;
        }
        shardscope::ui::SearchSettings s = session->searchSettings();
        s.algorithm = *algorithm_;
        s.mesh = mesh_;
        session->setSearchSettings(s);
        session->search().run(false);
        searched_ = true;
    }
    void tryScreenshot() {
        if (clock_.elapsed() > 300000) {
            std::fprintf(stderr, "shardscope: --screenshot: gave up after 300 s\n");
            QApplication::exit(2);
            return;
        }
        if (!searched_ || !window_->settled())
            return;
        // Settled: wait once more for pending paints, then grab.
        if (++settledPolls_ < 3)
            return;
        poll_.stop();
        const bool ok = panel_->grab().save(screenshot_);
        if (!ok)
            std::fprintf(stderr, "shardscope: could not write %s\n", screenshot_.toLocal8Bit().constData());
        QApplication::exit(ok ? 0 : 2);
    }

    shardscope::ui::MainWindow* window_;
    std::optional<shardscope::SearchAlgorithm> algorithm_;  ///< search once loaded, with this
    std::optional<shardscope::Mesh> mesh_;                  ///< on this mesh (every candidate if none)
    QString tactics_;
    QString measurements_;
    QString screenshot_;
    QWidget* panel_;
    QTimer poll_;
    QElapsedTimer clock_;
    bool searched_ = false;
    int settledPolls_ = 0;
};

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Shardscope"));
    QApplication::setOrganizationName(QStringLiteral("Shardscope"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Shardscope: a workbench for parallelizing training"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Model preset or file."),
                                   QStringLiteral("NAME|PATH"), QStringLiteral("gpt2-small"));
    const QCommandLineOption set(QStringLiteral("set"), QStringLiteral("Builder parameter override (repeatable)."),
                                 QStringLiteral("key=value"));
    const QCommandLineOption cluster(QStringLiteral("cluster"), QStringLiteral("Cluster preset or file."),
                                     QStringLiteral("NAME|PATH"), QStringLiteral("dgx-a100"));
    const QCommandLineOption nodes(QStringLiteral("nodes"), QStringLiteral("Number of nodes."), QStringLiteral("N"));
    const QCommandLineOption mesh(QStringLiteral("mesh"), QStringLiteral("Mesh axes, e.g. data=4,model=2."),
                                  QStringLiteral("AXES"));
    const QCommandLineOption strategy(QStringLiteral("strategy"), QStringLiteral("Baseline or plan file to start from."),
                                      QStringLiteral("NAME|PATH"), QStringLiteral("dp"));
    const QCommandLineOption algo(QStringLiteral("algo"),
                                  QStringLiteral("Run a search once loaded: auto, tapas, pase or brute."),
                                  QStringLiteral("NAME"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window to FILE (PNG) once settled, and exit."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption view(
        QStringLiteral("view"),
        QStringLiteral("With --screenshot: render one panel: graph, cluster, timeline, stages, compare, tactics or calibration."),
        QStringLiteral("NAME"));
    const QCommandLineOption tactics(QStringLiteral("tactics"),
                                     QStringLiteral("Apply a tactic script (*.tactics.json) once loaded."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption measurements(QStringLiteral("measurements"),
                                          QStringLiteral("Fit the cluster to measured runs (*.measurements.json) once loaded."),
                                          QStringLiteral("FILE"));
    parser.addOptions({model, set, cluster, nodes, mesh, strategy, algo, screenshot, view, tactics, measurements});
    parser.process(app);

    shardscope::ScenarioRequest request;
    request.model.spec = parser.value(model).toStdString();
    for (const QString& s : parser.values(set))
        request.model.sets.push_back(s.toStdString());
    request.cluster = parser.value(cluster).toStdString();
    if (parser.isSet(nodes)) {
        bool ok = false;
        request.nodes = parser.value(nodes).toInt(&ok);
        if (!ok || *request.nodes < 1) {
            std::fprintf(stderr, "shardscope: --nodes %s: expected a positive integer\n",
                         parser.value(nodes).toLocal8Bit().constData());
            return 2;
        }
    }
    // With --algo the mesh is the search's (auto when not given); without, the starting plan's.
    std::optional<shardscope::SearchAlgorithm> searchWith;
    std::optional<shardscope::Mesh> searchOn;
    try {
        if (parser.isSet(algo))
            searchWith = shardscope::parseAlgorithm(parser.value(algo).toStdString(), "--algo");
        if (searchWith && !parser.isSet(tactics) && parser.isSet(mesh))
            searchOn = shardscope::Mesh::parse(parser.value(mesh).toStdString());
    } catch (const shardscope::InputError& e) {
        std::fprintf(stderr, "shardscope: %s\n", e.what());
        return 2;
    }
    if (!parser.isSet(algo) || parser.isSet(tactics))
        request.mesh = parser.value(mesh).toStdString();
    request.strategy = parser.value(strategy).toStdString();

    shardscope::ui::MainWindow window;
    QWidget* panel = nullptr;
    if (parser.isSet(view)) {
        const QString name = parser.value(view);
        panel = name == QStringLiteral("graph") || name == QStringLiteral("cluster") || name == QStringLiteral("timeline") ||
                        name == QStringLiteral("stages") || name == QStringLiteral("compare") || name == QStringLiteral("tactics") ||
                        name == QStringLiteral("calibration")
                    ? window.showPanel(name)
                    : nullptr;
        if (!panel) {
            std::fprintf(stderr, "shardscope: --view %s: expected graph, cluster, timeline, stages, compare, tactics or calibration\n",
                         name.toLocal8Bit().constData());
            return 2;
        }
    }
    Startup startup(&window, searchWith, searchOn, parser.value(tactics), parser.value(measurements),
                    parser.value(screenshot), panel);
    if (parser.isSet(screenshot))
        window.resize(1600, 1000);
    window.show();
    if (panel && panel != static_cast<QWidget*>(window.graphView())) {
        // A panel on its own: float its dock at a size that shows it well.
        auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget());
        dock->setFloating(true);
        dock->resize(1400, 860);
        dock->show();
    }
    // Unsaved edits left by a crash come first (never in screenshot mode, which runs unattended).
    if (parser.isSet(screenshot) || !window.offerRecovery())
        window.session()->loads().openScenario(request);
    return QApplication::exec();
}
