// The explorer's second part, offscreen: selecting an op in the timeline selects it in the graph and
// inspector and the reverse; the cluster follows the selected op's collectives; exports (SVG that
// parses and names what it shows, a valid trace); the compare table and opening a row; every
// view's picture is non-empty.

#include <QGraphicsView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QItemSelectionModel>
#include <QTableView>
#include <QComboBox>
#include <QTemporaryDir>
#include <QFile>
#include <QSignalSpy>
#include <QtCharts/QChart>
#include <QTest>
#include <QXmlStreamReader>

#include "calibration/calibration_panel.h"
#include "cluster/cluster_view.h"
#include "compare/compare_model.h"
#include "compare/compare_view.h"
#include "export/view_export.h"
#include "graph/graph_items.h"
#include "graph/graph_view.h"
#include "models/tactics_model.h"
#include "panels/tactics_panel.h"
#include "main_window.h"
#include "window_test_support.h"
#include "panels/inspector_panel.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"

#include "engine/fidelity/measured_run.h"

#include <QTableWidget>

using namespace shardscope;
using namespace shardscope::ui;
using namespace shardscope::ui::testing;

namespace {


/// The text of every <text> element of an SVG document, or an error.
QStringList svgTexts(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = f.errorString();
        return {};
    }
    QXmlStreamReader xml(&f);
    QStringList texts;
    bool sawSvg = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QStringLiteral("svg"))
            sawSvg = true;
        if (xml.isStartElement() && xml.name() == QStringLiteral("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
    }
    if (xml.hasError())
        *error = xml.errorString();
    else if (!sawSvg)
        *error = QStringLiteral("no <svg> element");
    return texts;
}


} // namespace

class TestViews : public QObject {
    Q_OBJECT
    MainWindow* w = nullptr;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        w = new MainWindow(nullptr, 1);
        w->resize(1500, 950);
        w->show();
        w->session()->loads().openScenario(gptScenario("megatron"));
        QVERIFY(waitSettled(*w));
        QVERIFY(w->session()->simulation().result());
        QVERIFY(w->timelinePanel()->view()->data());
    }
    void cleanupTestCase() { delete w; }

    void timelineSelectsInGraphAndInspector() {
        Session* s = w->session();
        TimelineView* timeline = w->timelinePanel()->view();
        w->showPanel(QStringLiteral("timeline"));
        QTest::qWait(20);
        // The forward of the first MLP linear on device 1, zoomed so it is wide enough to click.
        const OpId fc1 = *s->state().problem->graph->findOp("layers.0.mlp.fc1");
        const SimEvent* event = nullptr;
        for (const SimEvent& e : s->simulation().result()->timeline(1).events)
            if (e.op == fc1 && !e.collective && e.phase == Phase::Forward)
                event = &e;
        QVERIFY(event);
        s->selectOp(OpId(0));
        timeline->fitAll();
        timeline->zoomBy(timeline->axis().secondsPerPixel * 40 / event->duration,
                         timeline->axis().x(event->start));
        const auto at = timeline->pointOf(1, *event);
        QVERIFY(at);
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, *at);
        QCOMPARE(s->selectedOp(), std::optional<OpId>(fc1));
        QCOMPARE(timeline->selectedDevice(), 1);
        const DisplayGraph* d = w->graphView()->displayGraph();
        QCOMPARE(w->graphView()->highlightedNode(), d->nodeOfOp[fc1.index()]);
        QCOMPARE(w->inspector()->heading(), QStringLiteral("layers.0.mlp.fc1"));
    }

    void graphSelectsInTimeline() {
        Session* s = w->session();
        GraphView* graph = w->graphView();
        graph->setExpanded(true);
        QVERIFY(waitSettled(*w));
        const OpId head = *s->state().problem->graph->findOp("lm_head");
        const int node = graph->displayGraph()->nodeOfOp[head.index()];
        graph->findChild<QGraphicsView*>()->centerOn(graph->nodePosition(node));
        auto* view = graph->findChild<QGraphicsView*>();
        view->centerOn(graph->scene()->items().front()); // anything; then aim at the node itself
        view->ensureVisible(QRectF(view->mapToScene(graph->nodePosition(node)), QSizeF(1, 1)));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, graph->nodePosition(node));
        QCOMPARE(s->selectedOp(), std::optional<OpId>(head));
        // The timeline scrolled to the op's events on the selected device and outlines them.
        TimelineView* timeline = w->timelinePanel()->view();
        const SimEvent* event = nullptr;
        for (const SimEvent& e : s->simulation().result()->timeline(timeline->selectedDevice()).events)
            if (e.op == head && !event)
                event = &e;
        QVERIFY(event);
        const double t0 = timeline->axis().time(0);
        const double t1 = timeline->axis().time(timeline->viewport()->width() - 128);
        QVERIFY(event->start < t1 && event->start + event->duration > t0);
        graph->setExpanded(false);
        QVERIFY(waitSettled(*w));
    }

    void clusterFollowsTheSelectedOpsCollectives() {
        Session* s = w->session();
        w->showPanel(QStringLiteral("cluster"));
        QVERIFY(waitSettled(*w));
        // Megatron's vocab-parallel loss: its one collective all-reduces per-token statistics over
        // the model axis (the logits arrive split as it wants them).
        const Graph& g = *s->state().problem->graph;
        const OpId loss = *g.findOp("loss");
        QCOMPARE(s->state().evaluation->perOp[loss.index()].collectives.size(), std::size_t(1));
        s->selectOp(loss);
        QCOMPARE(w->clusterView()->groupAxes(), axisBit(*s->state().plan.mesh.find("model")));
        // The attention scores of split heads need nothing: no groups.
        s->selectOp(*g.findOp("layers.0.attn.scores"));
        QCOMPARE(w->clusterView()->groupAxes(), AxisSet(0));
    }

    void exportsParseAndNameWhatTheyShow() {
        QTemporaryDir dir;
        QString error;
        const QString graphSvg = dir.filePath(QStringLiteral("g.svg"));
        QCOMPARE(exportSceneSvg(*w->graphView()->scene(), graphSvg, QStringLiteral("graph")), QString());
        QStringList texts = svgTexts(graphSvg, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const char* shown : {"embed", "final_norm", "lm_head", "loss"})
            QVERIFY2(texts.contains(QLatin1String(shown)), shown);
        QVERIFY(texts.filter(QStringLiteral("AR ")).size() > 0); // collective badges

        const QString clusterSvg = dir.filePath(QStringLiteral("c.svg"));
        QCOMPARE(exportSceneSvg(*w->clusterView()->scene(), clusterSvg, QStringLiteral("cluster")), QString());
        texts = svgTexts(clusterSvg, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(texts.contains(QStringLiteral("node 0")));
        QVERIFY(texts.contains(QStringLiteral("7")));

        const QString timelineSvg = dir.filePath(QStringLiteral("t.svg"));
        TimelineView* timeline = w->timelinePanel()->view();
        timeline->fitAll();
        QCOMPARE(exportPaintedSvg([timeline](QPainter& p, const QSize& size) { timeline->render(p, size); },
                                  timeline->viewport()->size(), timelineSvg, QStringLiteral("timeline")),
                 QString());
        texts = svgTexts(timelineSvg, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(texts.contains(QStringLiteral("rank 0 compute")));
        QVERIFY(texts.filter(QStringLiteral("peak")).size() == 1);

        const QString png = dir.filePath(QStringLiteral("g.png"));
        QCOMPARE(exportScenePng(*w->graphView()->scene(), png), QString());
        QVERIFY(inkFraction(QImage(png)) > 0.02);

        const QString trace = dir.filePath(QStringLiteral("t.trace.json"));
        QCOMPARE(exportTrace(*w->session(), trace), QString());
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray events = QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("traceEvents")].toArray();
        int complete = 0;
        for (const auto& v : events)
            if (v.toObject()[QStringLiteral("ph")].toString() == QStringLiteral("X")) {
                ++complete;
                for (const char* key : {"ts", "dur", "pid", "tid"})
                    QVERIFY(v.toObject().contains(QLatin1String(key)));
            }
        QCOMPARE(complete, int(w->session()->simulation().result()->timeline(0).events.size()) * 8);
    }

    void compareListsThePlansAndOpensOne() {
        Session* s = w->session();
        w->showPanel(QStringLiteral("compare"));
        QVERIFY(waitSettled(*w));
        CompareModel* model = w->compareView()->model();
        QStringList names;
        for (const ComparedPlan& r : model->rows())
            names << QString::fromStdString(r.name);
        for (const char* expected : {"dp", "megatron", "megatron-sp", "zero3", "megatron-sp+zero1"})
            QVERIFY2(names.contains(QLatin1String(expected)), expected);
        // The plan loaded is Megatron itself, so no "current plan" row repeats it... unless edited.
        for (const ComparedPlan& r : model->rows())
            QVERIFY(r.stepTime >= r.compute + r.optimizer - 1e-12);
        const Plan before = s->state().plan;
        w->showPanel(QStringLiteral("compare"));
        const int dp = int(names.indexOf(QStringLiteral("dp")));
        w->compareView()->openRow(dp); // unsorted: the proxy keeps source order
        QVERIFY(waitSettled(*w));
        QCOMPARE(s->state().plan.strategies(), model->rows()[std::size_t(dp)].state.plan.strategies());
        s->undoStack()->undo();
        QCOMPARE(s->state().plan.strategies(), before.strategies());
        QVERIFY(waitSettled(*w));
    }

    void tacticsBuildThePlanStepByStep() {
        Session* s = w->session();
        w->showPanel(QStringLiteral("tactics"));
        s->tactics().open(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/samples/tactics/bp-megatron-zero3.tactics.json"));
        QCOMPARE(s->tactics().script().size(), std::size_t(4));
        s->tactics().run();
        QVERIFY(waitSettled(*w));
        const auto run = s->tactics().lastRun();
        QVERIFY(run);
        TacticsModel* model = w->tacticsPanel()->model();
        QCOMPARE(model->rowCount(), 4);
        QVERIFY(model->data(model->index(3, 0), TacticsModel::StepRole).toBool());
        QCOMPARE(s->state().plan.strategies(), run->plan.strategies());
        QCOMPARE(s->state().evaluation, run->evaluation); // the run's evaluation, not a second one
        // Every step is a row of the comparison.
        w->showPanel(QStringLiteral("compare"));
        QVERIFY(waitSettled(*w));
        int steps = 0;
        for (const ComparedPlan& r : w->compareView()->model()->rows())
            steps += r.name.rfind("tactic ", 0) == 0 ? 1 : 0;
        QCOMPARE(steps, 4);
        // Selecting a step shows its plan.
        auto* table = w->tacticsPanel()->findChild<QTableView*>();
        table->selectionModel()->setCurrentIndex(model->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(waitSettled(*w));
        QCOMPARE(s->state().plan.strategies(), run->stages[0].plan.strategies());
        QCOMPARE(s->state().evaluation->stepTime, run->stages[0].evaluation->stepTime);
        // The inspector says why an op splits as it does.
        s->selectOp(*s->state().problem->graph->findOp("layers.0.mlp.gelu"));
        QVERIFY2(w->inspector()->details().contains(QStringLiteral("propagated from layers.0.mlp.fc1")),
                 qPrintable(w->inspector()->details()));
    }
    void undecidedOpsAreDrawnApart() {
        Session* s = w->session();
        // One weight sharded: the ops it does not reach stay undecided, and the graph says so.
        Tactic t;
        t.kind = TacticKind::Shard;
        t.tensors = {"layers.0.mlp.fc1.weight"};
        t.dim = 1;
        t.axis = "model";
        s->tactics().setScript({t});
        s->tactics().run();
        QVERIFY(waitSettled(*w));
        const Graph& g = *s->state().problem->graph;
        const DisplayGraph* d = w->graphView()->displayGraph();
        QVERIFY(d);
        auto lookOf = [&](const char* op) -> const NodeLook* {
            const int node = d->nodeOfOp[g.findOp(op)->index()];
            for (QGraphicsItem* item : w->graphView()->scene()->items())
                if (auto* n = dynamic_cast<NodeItem*>(item); n && n->index() == node)
                    return &n->look();
            return nullptr;
        };
        QVERIFY(lookOf("loss") && lookOf("loss")->undecided);
        QVERIFY(lookOf("embed") && lookOf("embed")->undecided);
        QVERIFY(!s->state().plan.ops[g.findOp("layers.0.mlp.fc2")->index()].undecided());
        s->undoStack()->undo();
        QVERIFY(waitSettled(*w));
        QVERIFY(!lookOf("loss")->undecided);
    }

    void everyViewDrawsSomething_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"graph", "cluster", "timeline", "compare", "tactics"})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void everyViewDrawsSomething() {
        QFETCH(QString, view);
        QWidget* panel = w->showPanel(view);
        QVERIFY(panel);
        QVERIFY(waitSettled(*w));
        const QImage image = panel->grab().toImage();
        QVERIFY(image.width() > 100 && image.height() > 100);
        QVERIFY2(inkFraction(image) > 0.02, qPrintable(QString::number(inkFraction(image))));
    }
    void calibrationFitsAndAppliesTheCluster() {
        // Two runs measured 30% slower than the loaded cluster predicts them: the fit lowers the
        // predictions towards the measurements, the scatter shows both clusters, and applying the fit
        // opens it as the session's cluster.
        auto* panel = w->calibrationPanel();
        QTemporaryDir dir;
        MeasuredRun a;
        a.name = "dp";
        a.model = "gpt";
        a.sets = {"layers=2"};
        a.batch = 8;
        a.cluster = "dgx-a100";
        a.mesh = "data=8";
        a.strategy = "dp";
        MeasuredRun b = a;
        b.name = "megatron";
        b.mesh = "data=2,model=4";
        b.strategy = "megatron";
        const Cluster current = *w->session()->state().problem->cluster;
        const double ma = 1.3 * predictRun(a, current).stepTime, mb = 1.3 * predictRun(b, current).stepTime;
        const QString path = dir.filePath(QStringLiteral("runs.measurements.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral(R"({"format": "shardscope-measurements", "version": 1, "runs": [
            {"name": "dp", "model": "gpt", "set": {"layers": 2}, "mesh": "data=8", "batch": 8, "attention": "unfused", "step_time_s": %1},
            {"name": "megatron", "model": "gpt", "set": {"layers": 2}, "mesh": "data=2,model=4", "strategy": "megatron",
             "batch": 8, "attention": "unfused", "step_time_s": %2}]})")
                       .arg(ma, 0, 'g', 17)
                       .arg(mb, 0, 'g', 17)
                       .toUtf8());
        file.close();
        QSignalSpy failures(panel, &CalibrationPanel::failed);
        QVERIFY(panel->loadMeasurements(path));
        QCOMPARE(panel->runs().size(), std::size_t(2));
        QVERIFY(!panel->loadMeasurements(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/fixtures/malformed.model.json")));
        QCOMPARE(failures.count(), 1);
        QVERIFY(failures.front().front().toString().contains(QStringLiteral("malformed.model.json")));
        QCOMPARE(panel->runs().size(), std::size_t(2));

        w->showPanel(QStringLiteral("calibration"));
        panel->fit();
        QVERIFY(waitSettled(*w));
        QVERIFY(panel->result());
        const Calibration& fit = *panel->result();
        for (std::size_t i = 0; i < 2; ++i) {
            const double measured = panel->runs()[i].measured;
            QVERIFY(std::abs(fit.before[i] / measured - 1) > 0.2);
            QVERIFY(std::abs(fit.after[i] / measured - 1) < 0.5 * std::abs(fit.before[i] / measured - 1));
            QVERIFY(!panel->runsTable()->item(int(i), 5)->text().isEmpty());
        }
        QCOMPARE(panel->chart()->series().size(), qsizetype(3));
        QVERIFY(inkFraction(panel->grab().toImage()) > 0.02);
        QCOMPARE(fit.parameters.size(), calibrationParameters(current).size());

        // "device only" moves the three device efficiencies and keeps every link figure.
        auto* scope = panel->findChild<QComboBox*>(QStringLiteral("calibrationScope"));
        QVERIFY(scope);
        scope->setCurrentIndex(scope->findData(QStringLiteral("device")));
        panel->fit();
        QVERIFY(waitSettled(*w));
        const Calibration deviceOnly = *panel->result();
        QCOMPARE(deviceOnly.parameters.size(), std::size_t(3));
        for (std::size_t l = 0; l < current.levels.size(); ++l)
            QCOMPARE(deviceOnly.cluster.levels[l].efficiency, current.levels[l].efficiency);
        scope->setCurrentIndex(0);
        panel->fit();
        QVERIFY(waitSettled(*w));

        const QString fitted = dir.filePath(QStringLiteral("fitted.cluster.json"));
        QCOMPARE(panel->applyTo(fitted), QString());
        QVERIFY(waitSettled(*w));
        QCOMPARE(w->session()->state().problem->clusterSpec, fitted.toStdString());
        QCOMPARE(w->session()->state().problem->cluster->device.efficiency, fit.cluster.device.efficiency);
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
