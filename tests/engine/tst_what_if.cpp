// What-if prices against full re-evaluation: every alternative strategy of an op, priced by its
// local change, equals evaluate() of the plan with that strategy. Per-edge reports add up.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/evaluation/what_if.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"

using namespace shardscope;

class TestWhatIf : public QObject {
    Q_OBJECT
private slots:
    void everyAlternativeEqualsAFullEvaluation_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("strategy");
        QTest::newRow("llama megatron") << QStringLiteral("llama") << QStringLiteral("data=4,model=2")
                                        << QStringLiteral("megatron");
        QTest::newRow("moe megatron-sp+zero1") << QStringLiteral("moe") << QStringLiteral("data=2,model=4")
                                               << QStringLiteral("megatron-sp+zero1");
        QTest::newRow("gpt dp, three axes") << QStringLiteral("gpt") << QStringLiteral("data=2,seq=2,model=2")
                                            << QStringLiteral("dp");
    }
    void everyAlternativeEqualsAFullEvaluation() {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        QFETCH(QString, strategy);
        const Graph g = loadModel(ModelRequest{model.toStdString(), {"layers=1"}, std::nullopt}, 1);
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh m = Mesh::parse(mesh.toStdString());
        const Plan plan = baselinePlan(g, m, strategy.toStdString(), {});
        const CostModel cm(g, c, m, plan.settings);
        const auto e = evaluate(cm, plan);
        int checked = 0;
        for (OpId o : g.topoOrder()) {
            const auto alternatives = whatIf(cm, plan, *e, o);
            QCOMPARE(std::count_if(alternatives.begin(), alternatives.end(), [](const WhatIf& w) { return w.current; }),
                     1);
            for (const WhatIf& w : alternatives) {
                Plan changed = plan;
                changed.ops[o.index()].strategy = w.strategy;
                const auto full = evaluate(cm, changed);
                QVERIFY2(std::abs(w.stepTime - full->objective) <= 1e-9 * full->objective,
                         qPrintable(QString::fromStdString(g.op(o).name + " " + w.text)));
                QVERIFY(std::abs(w.peakMemory - full->peakMemory) <= 1e-9 * full->peakMemory);
                QCOMPARE(w.feasible, full->feasible);
                ++checked;
            }
        }
        QVERIFY(checked > int(g.ops().size()));
    }
    void edgeReportsAreTheReshardingIntoEachOp() {
        const Graph g = loadModel(ModelRequest{"gpt", {"layers=1"}, std::nullopt}, 1);
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh m = Mesh::parse("data=4,model=2");
        const Plan plan = baselinePlan(g, m, "megatron-sp", {});
        const CostModel cm(g, c, m, plan.settings);
        const auto e = evaluate(cm, plan);
        QCOMPARE(e->perEdge.size(), cm.edges().size());
        std::vector<double> intoOp(g.ops().size(), 0.0);
        double bytes = 0;
        for (const EdgeReport& r : e->perEdge) {
            intoOp[r.to.index()] += r.time;
            bytes += r.bytesSent;
        }
        QVERIFY(bytes > 0);
        // An op's collectives are its own plus the resharding into it.
        for (OpId o : g.topoOrder()) {
            double resharding = 0;
            for (const CollectiveCost& cc : e->perOp[o.index()].collectives)
                if (cc.purpose == CommPurpose::Resharding)
                    resharding += cc.totalTime();
            QVERIFY(std::abs(resharding - intoOp[o.index()]) <= 1e-12 + 1e-9 * resharding);
        }
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_what_if.moc"
