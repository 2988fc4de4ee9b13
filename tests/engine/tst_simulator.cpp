// The step simulator against the analytic cost: equal with overlap off, never slower with overlap
// on, the same memory peak; traffic totals; a trace that Perfetto can read.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/evaluation.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/sim/simulator.h"
#include "engine/sim/trace_export.h"

using namespace shardscope;

namespace {

/// A baseline plan of a preset with its cost model, kept alive together.
struct Scene {
    Graph graph;
    Cluster cluster;
    Mesh mesh;
    Plan plan;
    std::unique_ptr<CostModel> model;

    Scene(const std::string& preset, std::vector<std::string> sets, int nodes, const std::string& meshText,
          const std::string& strategy)
        : graph(loadModel(ModelRequest{preset, std::move(sets), std::nullopt}, 1)),
          cluster(clusterPreset("dgx-a100", nodes)), mesh(Mesh::parse(meshText)),
          plan(baselinePlan(graph, mesh, strategy, {})),
          model(std::make_unique<CostModel>(graph, cluster, mesh, plan.settings)) {}
    std::shared_ptr<const SimResult> run(SimOptions options = {}) const { return simulate(*model, plan, options); }
};

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT
private slots:
    void agreesWithTheAnalyticCost_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("strategy");
        for (const char* m : {"mlp", "gpt", "llama", "moe", "resnet", "gpt2-small", "gpt3-1.3b", "gpt3-175b", "llama2-7b",
                              "llama2-70b", "mixtral-8x7b", "resnet50", "inception-v3"})
            for (const char* s : {"dp", "megatron", "megatron-sp", "zero1", "zero2", "zero3", "megatron-sp+zero3"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(m), QLatin1String(s))))
                    << QString::fromLatin1(m) << QString::fromLatin1(s);
    }
    void agreesWithTheAnalyticCost() {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        StepSettings settings;
        settings.microbatches = 2;
        settings.recompute = Recompute::Selective;
        const Graph g = loadModel(ModelRequest{model.toStdString(), {}, std::nullopt}, 2);
        const Cluster c = clusterPreset("dgx-a100", 2);
        const Mesh mesh = Mesh::parse("data=2,model=8");
        const Plan plan = baselinePlan(g, mesh, strategy.toStdString(), settings);
        const CostModel cm(g, c, mesh, plan.settings);
        const auto e = evaluate(cm, plan);
        const auto off = simulate(cm, plan, SimOptions{false, 25e6});
        const auto on = simulate(cm, plan, SimOptions{true, 25e6});
        QVERIFY2(std::abs(off->stepTime - e->stepTime) <= 0.005 * e->stepTime,
                 qPrintable(QStringLiteral("sim %1 analytic %2").arg(off->stepTime).arg(e->stepTime)));
        QVERIFY(on->stepTime <= off->stepTime * (1 + 1e-12));
        QCOMPARE(off->peakMemory, e->peakMemory);
        QCOMPARE(on->peakMemory, e->peakMemory);
        // Overlap off exposes every collective.
        QVERIFY(std::abs(off->exposedComm - (e->commTime)) <= 0.005 * e->stepTime);
        // Traffic over the levels adds up to the bytes every device sends.
        double total = 0;
        for (const LevelTraffic& t : off->traffic)
            total += t.bytesPerStep;
        QVERIFY(std::abs(total - e->commBytesPerDevice * e->devices) <= 1e-6 * std::max(1.0, total));
    }
    void overlapHidesGradientSynchronisation() {
        // Data parallel on one node: the bucketed all-reduces run behind the backward.
        const Scene s("gpt", {}, 1, "data=8", "dp");
        const auto off = s.run(SimOptions{false, 25e6});
        const auto on = s.run(SimOptions{true, 25e6});
        QVERIFY(on->stepTime < 0.95 * off->stepTime);
        QVERIFY(on->exposedComm < off->exposedComm);
    }
    void busiestPairsByHand() {
        // dp over 16 GPUs on two nodes: one all-reduce per parameter over the data axis, hierarchical:
        // inside each node a ring of 8 devices, across a ring of the 2 nodes on the node's 1/8 share.
        const Scene s("mlp", {"layers=1"}, 2, "data=16", "dp");
        const auto r = s.run();
        const double S = s.graph.parameterCount() * 2; // bf16 gradients
        // Inside: reduce-scatter + all-gather, 2 (8-1)/8 S per device to its ring successor.
        QCOMPARE(r->traffic[0].busiestPairBytes, 2.0 * 7 / 8 * S);
        // Across: all-reduce of S/8 between 2 nodes, 2 (2-1)/2 S/8 per device, 8 devices per node.
        QCOMPARE(r->traffic[1].busiestPairBytes, 2.0 * 1 / 2 * (S / 8) * 8);
        QCOMPARE(QString::fromStdString(r->traffic[1].busiestPair), QStringLiteral("node 0 -> node 1"));
    }
    void traceValidates() {
        const Scene s("gpt", {"layers=1"}, 1, "data=4,model=2", "megatron");
        const auto r = s.run();
        const QJsonObject doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(chromeTraceJson(*r, s.graph, s.cluster, s.mesh))).object();
        const QJsonArray events = doc[QStringLiteral("traceEvents")].toArray();
        QSet<int> named;
        QMap<int, int> flows;
        int complete = 0;
        for (const auto& v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e[QStringLiteral("ph")].toString();
            if (ph == QStringLiteral("X")) {
                ++complete;
                for (const char* key : {"ts", "dur", "pid", "tid"})
                    QVERIFY2(e.contains(QLatin1String(key)), key);
            } else if (ph == QStringLiteral("M") && e[QStringLiteral("name")].toString() == QStringLiteral("process_name")) {
                named.insert(e[QStringLiteral("pid")].toInt());
            } else if (ph == QStringLiteral("s")) {
                flows[e[QStringLiteral("id")].toInt()] += 1;
            } else if (ph == QStringLiteral("f")) {
                QVERIFY(flows.contains(e[QStringLiteral("id")].toInt())); // every finish has its start
            }
        }
        QVERIFY(complete > 0);
        QCOMPARE(named.size(), 8);
        QVERIFY(!flows.isEmpty());
        // The plain event list has one entry per simulated event, with its fields.
        const QJsonArray list = QJsonDocument::fromJson(QByteArray::fromStdString(eventsJson(*r, s.mesh))).array();
        QCOMPARE(list.size(), qsizetype(r->events.size()));
        for (const char* key : {"device", "stream", "op", "phase", "kind", "start_s", "duration_s", "bytes", "axes"})
            QVERIFY2(list[0].toObject().contains(QLatin1String(key)), key);
    }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
