// The window on every shape of mesh, offscreen: one data axis, three axes (data, seq, model), a
// pipelined mesh (also with ZeRO-3 and sequence parallelism), and a branchy graph from a text
// fixture. On each, every view agrees with the evaluation (graph nodes, ops table, inspector, cluster
// groups, timeline devices, stages), the status bar and the timeline show the same simulated step,
// every view draws something, and a search on the mesh keeps it and shows the search's own
// evaluation.

#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "cluster/cluster_view.h"
#include "graph/graph_view.h"
#include "graph_text.h"
#include "main_window.h"
#include "models/ops_model.h"
#include "panels/inspector_panel.h"
#include "panels/ops_panel.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "window_test_support.h"

#include "engine/io/safe_write.h"

using namespace shardscope;
using namespace shardscope::ui;
using namespace shardscope::ui::testing;

class TestMeshes : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void everyViewFollowsThePlan_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("stages");
        QTest::newRow("data only") << QStringLiteral("gpt") << QStringLiteral("data=8") << QStringLiteral("dp") << 1;
        QTest::newRow("three axes") << QStringLiteral("gpt") << QStringLiteral("data=2,seq=2,model=2")
                                    << QStringLiteral("megatron-sp") << 1;
        QTest::newRow("pipelined") << QStringLiteral("gpt8") << QStringLiteral("pipe=2,data=2,model=2")
                                   << QStringLiteral("megatron") << 2;
        QTest::newRow("pipelined, ZeRO-3, tensor-parallel")
            << QStringLiteral("gpt8") << QStringLiteral("pipe=2,data=2,model=2") << QStringLiteral("megatron-sp+zero3") << 2;
        QTest::newRow("branchy fixture") << QStringLiteral("fixture:branchy") << QStringLiteral("data=2,seq=2,model=2")
                                         << QStringLiteral("dp") << 1;
    }
    void everyViewFollowsThePlan() {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        QFETCH(QString, strategy);
        QFETCH(int, stages);
        ScenarioRequest request = gptScenario(strategy.toStdString());
        request.mesh = mesh.toStdString();
        if (model == QStringLiteral("gpt8")) {
            request.model.sets = {"layers=8", "batch=64"};
        } else if (model.startsWith(QStringLiteral("fixture:"))) {
            // The fixture as the model file a user would open.
            const std::string name = model.mid(8).toStdString();
            const std::string path = dir_.filePath(QString::fromStdString(name) + QStringLiteral(".model.json")).toStdString();
            writeFileAtomically(path, shardscope::testing::graphFixtureJson(name));
            request.model = ModelRequest{path, {}, std::nullopt};
        }
        MainWindow w(nullptr, 1);
        w.resize(1500, 950);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(request);
        QVERIFY(waitSettled(w));
        QVERIFY(s->loaded());
        const PlanState& state = s->state();
        const Graph& g = *state.problem->graph;
        QCOMPARE(state.plan.mesh, Mesh::parse(mesh.toStdString()));
        QCOMPARE(state.plan.pipeline.active() ? state.plan.pipeline.stages : 1, stages);

        // Graph: every op has a node. Ops table: a row per op, its strategy the evaluation's.
        const DisplayGraph* display = w.graphView()->displayGraph();
        QVERIFY(display);
        for (std::size_t o = 0; o < g.ops().size(); ++o)
            QVERIFY(display->nodeOfOp[o] >= 0);
        OpsModel* ops = w.opsPanel()->model();
        QCOMPARE(ops->rowCount(), int(g.ops().size()));
        for (int row = 0; row < ops->rowCount(); ++row) {
            const QString name = ops->data(ops->index(row, OpsModel::Name)).toString();
            const OpId o = *g.findOp(name.toStdString());
            QCOMPARE(ops->data(ops->index(row, OpsModel::Strategy)).toString(),
                     QString::fromStdString(state.evaluation->perOp[o.index()].strategy));
        }

        // The op with the slowest collective: the inspector names it and its strategy, the cluster
        // colours the groups of that collective's axes.
        std::optional<OpId> busiest;
        double slowest = 0;
        AxisSet axes = 0;
        for (const OpReport& r : state.evaluation->perOp)
            for (const CollectiveCost& c : r.collectives)
                if (c.totalTime() > slowest) {
                    slowest = c.totalTime();
                    busiest = r.op;
                    axes = c.axes;
                }
        QVERIFY(busiest);
        w.showPanel(QStringLiteral("cluster"));
        s->selectOp(busiest);
        QVERIFY(waitSettled(w));
        QCOMPARE(w.inspector()->heading(), QString::fromStdString(g.op(*busiest).name));
        QVERIFY(w.inspector()->details().contains(QString::fromStdString(state.evaluation->perOp[busiest->index()].strategy)));
        QCOMPARE(w.clusterView()->groupAxes(), axes);

        // Timeline: every device of the mesh simulated; pipelined, its stages' devices.
        const TimelineData* timeline = w.timelinePanel()->view()->data();
        QVERIFY(timeline && timeline->sim);
        QCOMPARE(timeline->sim->devices, state.plan.mesh.deviceCount());
        QCOMPARE(int(timeline->sim->classOfDevice.size()), state.plan.mesh.deviceCount());
        QCOMPARE(timeline->pipelined(), stages > 1);
        if (stages > 1) {
            QCOMPARE(timeline->devicesPerStage, state.plan.mesh.deviceCount() / stages);
            auto* table = w.findChild<QTableWidget*>(QStringLiteral("stageTable"));
            QVERIFY(table);
            QCOMPARE(table->rowCount(), stages);
        }
        // One clock: the status bar and the timeline show the same step, the simulated one.
        const auto* stepLabel = w.findChild<QLabel*>(QStringLiteral("stepLabel"));
        const auto* timelineSummary = w.timelinePanel()->findChild<QLabel*>(QStringLiteral("timelineSummary"));
        QVERIFY(stepLabel && timelineSummary);
        const QRegularExpression step(QStringLiteral("^[Ss]tep ([0-9.]+ [a-z]+)"));
        const QRegularExpressionMatch inStatus = step.match(stepLabel->text());
        const QRegularExpressionMatch inTimeline = step.match(timelineSummary->text());
        QVERIFY2(inStatus.hasMatch() && inTimeline.hasMatch(), qPrintable(stepLabel->text() + QStringLiteral(" | ") + timelineSummary->text()));
        QCOMPARE(inStatus.captured(1), inTimeline.captured(1));
        QVERIFY(stepLabel->text().contains(QStringLiteral("(simulated)")));
        for (const char* view : {"graph", "cluster", "timeline"}) {
            QWidget* panel = w.showPanel(QString::fromLatin1(view));
            QVERIFY(waitSettled(w));
            QVERIFY2(inkFraction(panel->grab().toImage()) > 0.02, view);
        }

        // A search on the mesh keeps it, lands as one undoable step and shows its own evaluation,
        // no slower than the plan it started from when that one fits.
        const double before = state.evaluation->stepTime;
        const bool fitted = state.evaluation->feasible;
        SearchSettings settings = s->searchSettings();
        settings.mesh = state.plan.mesh;
        s->setSearchSettings(settings);
        s->search().run(false);
        QVERIFY(waitSettled(w));
        QCOMPARE(s->undoStack()->count(), 1);
        QCOMPARE(s->state().plan.mesh, Mesh::parse(mesh.toStdString()));
        QCOMPARE(s->state().evaluation, s->search().last()->evaluation);
        if (fitted)
            QVERIFY(s->state().evaluation->stepTime <= before * (1 + 1e-9));
    }
};

QTEST_MAIN(TestMeshes)
#include "tst_meshes.moc"
