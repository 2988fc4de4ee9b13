// shardscope: the desktop workbench. Opens the window on the scenario given on the command line
// (default: the sample model and cluster); --screenshot renders the window to a PNG and exits.

#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Shardscope"));
    QApplication::setOrganizationName(QStringLiteral("Shardscope"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Shardscope: a workbench for parallelizing training"));
    parser.addHelpOption();
    const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Model preset or file."),
                                   QStringLiteral("NAME|PATH"), QStringLiteral("gpt2-small"));
    const QCommandLineOption cluster(QStringLiteral("cluster"), QStringLiteral("Cluster preset or file."),
                                     QStringLiteral("NAME|PATH"), QStringLiteral("dgx-a100"));
    const QCommandLineOption nodes(QStringLiteral("nodes"), QStringLiteral("Number of nodes."), QStringLiteral("N"));
    const QCommandLineOption mesh(QStringLiteral("mesh"), QStringLiteral("Mesh axes, e.g. data=4,model=2."),
                                  QStringLiteral("AXES"));
    const QCommandLineOption strategy(QStringLiteral("strategy"), QStringLiteral("Baseline or plan file."),
                                      QStringLiteral("NAME|PATH"), QStringLiteral("dp"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window to FILE (PNG) and exit."),
                                        QStringLiteral("FILE"));
    parser.addOptions({model, cluster, nodes, mesh, strategy, screenshot});
    parser.process(app);

    shardscope::ScenarioRequest request;
    request.model.spec = parser.value(model).toStdString();
    request.cluster = parser.value(cluster).toStdString();
    if (parser.isSet(nodes))
        request.nodes = parser.value(nodes).toInt();
    request.mesh = parser.value(mesh).toStdString();
    request.strategy = parser.value(strategy).toStdString();

    shardscope::ui::MainWindow window;
    const QString error = window.openScenario(request);
    if (parser.isSet(screenshot)) {
        if (!error.isEmpty()) {
            std::fprintf(stderr, "shardscope: %s\n", error.toLocal8Bit().constData());
            return 2;
        }
        window.show();
        QApplication::processEvents();
        const bool ok = window.grab().save(parser.value(screenshot));
        return ok ? 0 : 2;
    }
    window.show();
    if (!error.isEmpty())
        QTimer::singleShot(0, &window, [&window, error] {
            QMessageBox::critical(&window, QStringLiteral("Shardscope"), error);
        });
    return QApplication::exec();
}
