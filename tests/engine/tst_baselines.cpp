// Baseline plans: which factor each axis splits (docs/DESIGN.md, Baselines).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

using namespace shardscope;

namespace {

std::string strategyOf(const Graph& g, const Plan& p, const std::string& op) {
    const OpId o = *g.findOp(op);
    return p.ops[o.index()].strategy.toString(g.op(o).rule, p.mesh);
}

Graph gpt() { return loadModel(ModelRequest{"gpt", {"layers=1"}, std::nullopt}, 1); }

} // namespace

class TestBaselines : public QObject {
    Q_OBJECT
private slots:
    void dataParallelSplitsTheBatch() {
        const Graph g = gpt();
        const Plan p = baselinePlan(g, Mesh::parse("data=8"), "dp", {});
        for (const Op& op : g.ops())
            QCOMPARE(strategyOf(g, p, op.name), "data:" + (op.hints.batch.empty() ? std::string("b") : op.hints.batch));
        QCOMPARE(p.settings.zeroStage, 0);
    }
    void megatronColumnThenRow_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("strategy");
        QTest::newRow("embedding vocab") << QStringLiteral("embed") << QStringLiteral("data:b model:v");
        QTest::newRow("qkv heads") << QStringLiteral("layers.0.attn.qkv") << QStringLiteral("data:b model:g");
        QTest::newRow("scores heads") << QStringLiteral("layers.0.attn.scores") << QStringLiteral("data:b model:g");
        QTest::newRow("projection") << QStringLiteral("layers.0.attn.proj") << QStringLiteral("data:b model:g");
        QTest::newRow("fc1 column") << QStringLiteral("layers.0.mlp.fc1") << QStringLiteral("data:b model:f");
        QTest::newRow("gelu keeps f") << QStringLiteral("layers.0.mlp.gelu") << QStringLiteral("data:b model:f");
        QTest::newRow("fc2 row") << QStringLiteral("layers.0.mlp.fc2") << QStringLiteral("data:b model:f");
        QTest::newRow("norm replicated") << QStringLiteral("layers.0.norm1") << QStringLiteral("data:b");
        QTest::newRow("lm head vocab") << QStringLiteral("lm_head") << QStringLiteral("data:b model:v");
        QTest::newRow("loss vocab") << QStringLiteral("loss") << QStringLiteral("data:b model:v");
    }
    void megatronColumnThenRow() {
        QFETCH(QString, op);
        QFETCH(QString, strategy);
        const Graph g = gpt();
        const Plan p = baselinePlan(g, Mesh::parse("data=4,model=2"), "megatron", {});
        QCOMPARE(QString::fromStdString(strategyOf(g, p, op.toStdString())), strategy);
    }
    void sequenceParallelSplitsNormsOnSequence() {
        const Graph g = gpt();
        const Plan p = baselinePlan(g, Mesh::parse("data=4,model=2"), "megatron-sp", {});
        QCOMPARE(strategyOf(g, p, "layers.0.norm1"), std::string("data:b model:s"));
        QCOMPARE(strategyOf(g, p, "layers.0.add2"), std::string("data:b model:s"));
        QCOMPARE(strategyOf(g, p, "layers.0.mlp.fc1"), std::string("data:b model:f"));
    }
    void indivisibleFactorStaysReplicated() {
        // 12 heads do not split over 8: the attention stays replicated on model, the MLP does not.
        const Graph g = loadModel(ModelRequest{"gpt2-small", {"layers=1"}, std::nullopt}, 1);
        const Plan p = baselinePlan(g, Mesh::parse("model=8"), "megatron", {});
        QCOMPARE(strategyOf(g, p, "layers.0.attn.qkv"), std::string("replicated"));
        QCOMPARE(strategyOf(g, p, "layers.0.mlp.fc1"), std::string("model:f"));
        QVERIFY(p.verify(g).empty());
    }
    void combinationsSetZero() {
        const Graph g = gpt();
        const Plan p = baselinePlan(g, Mesh::parse("data=4,model=2"), "megatron+zero3", {});
        QCOMPARE(p.settings.zeroStage, 3);
        QCOMPARE(p.settings.zeroAxes, AxisSet(1));
        QCOMPARE(strategyOf(g, p, "layers.0.mlp.fc1"), std::string("data:b model:f"));
    }
    void badSpecs_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown") << QStringLiteral("pipeline") << QStringLiteral("data=8") << QStringLiteral("unknown baseline");
        QTest::newRow("two patterns") << QStringLiteral("dp+megatron") << QStringLiteral("data=8") << QStringLiteral("more than one");
        QTest::newRow("no model axis") << QStringLiteral("megatron") << QStringLiteral("data=4,tensor=2")
                                       << QStringLiteral("no axis named 'model'");
        QTest::newRow("folding without tensor parallelism") << QStringLiteral("zero1+etp1") << QStringLiteral("data=8")
                                                            << QStringLiteral("join it to megatron or megatron-sp");
    }
    void badSpecs() {
        QFETCH(QString, spec);
        QFETCH(QString, mesh);
        QFETCH(QString, expected);
        try {
            baselinePlan(gpt(), Mesh::parse(mesh.toStdString()), spec.toStdString(), {});
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestBaselines)
#include "tst_baselines.moc"
