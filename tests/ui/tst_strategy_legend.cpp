// Strategy descriptions and the legend: Megatron's patterns read as such, entries count ops.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "graph/strategy_legend.h"

#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"

using namespace shardscope;
using namespace shardscope::ui;

class TestStrategyLegend : public QObject {
    Q_OBJECT
private slots:
    void megatronReadsAsItsPattern() {
        const Graph g = loadModel(ModelRequest{"gpt", {"layers=1"}, std::nullopt}, 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const Plan plan = baselinePlan(g, mesh, "megatron", {});
        auto label = [&](const char* op) {
            const OpId o = *g.findOp(op);
            return QString::fromStdString(strategyLabel(g.op(o), plan.ops[o.index()].strategy, mesh));
        };
        // The attention core splits heads; fc1 splits its output features (the column split).
        QCOMPARE(label("layers.0.attn.scores"), QStringLiteral("batch over data, heads over model"));
        QCOMPARE(label("layers.0.mlp.fc1"), QStringLiteral("batch over data, f split over model"));
        QCOMPARE(label("lm_head"), QStringLiteral("batch over data, vocab over model"));
        const Plan none = Plan::replicated(g.ops().size(), mesh);
        QCOMPARE(QString::fromStdString(strategyLabel(g.op(OpId(0)), none.ops[0].strategy, mesh)),
                 QStringLiteral("replicated"));
    }
    void legendCountsEveryOpOnce() {
        const Graph g = loadModel(ModelRequest{"llama", {"layers=2"}, std::nullopt}, 1);
        const Mesh mesh = Mesh::parse("data=2,model=4");
        const Plan plan = baselinePlan(g, mesh, "megatron-sp", {});
        const StrategyLegend legend = buildLegend(g, plan);
        int total = 0;
        for (std::size_t i = 0; i < legend.entries.size(); ++i) {
            total += legend.entries[i].ops;
            if (i > 0)
                QVERIFY(legend.entries[i - 1].ops >= legend.entries[i].ops);
        }
        QCOMPARE(total, int(g.ops().size()));
        for (OpId o : g.topoOrder()) {
            const auto& entry = legend.entries[std::size_t(legend.entryOfOp[o.index()])];
            QCOMPARE(entry.label, strategyLabel(g.op(o), plan.ops[o.index()].strategy, mesh));
        }
    }
};

QTEST_GUILESS_MAIN(TestStrategyLegend)
#include "tst_strategy_legend.moc"
