// Activation memory against Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models"), Table 2 and section 4: bytes kept per transformer layer for a 16-bit model
// with b sequences of s tokens, hidden h, a heads and tensor parallelism t, with and without dropout,
// setting by setting. A layer's bytes are the difference between the models of 3 and 2 layers, so the
// embedding, the head and the one recomputed layer's working set cancel.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/evaluation.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"

using namespace shardscope;

namespace {

constexpr double s = 2048, h = 4096, a = 32; // Korthikanti's Table 2 example, b = 1 per device
constexpr double sbh = s * h;                 // b = 1
constexpr double t = 8;                       // tensor-parallel size where TP is on

/// Activation bytes per device of the gpt builder at Table 2's sizes, one sequence per device.
double activations(int layers, bool dropout, const std::string& strategy, Recompute recompute) {
    const bool tensorParallel = strategy != "dp";
    const std::vector<std::string> sets{"layers=" + std::to_string(layers), "hidden=4096", "heads=32", "seq=2048",
                                        tensorParallel ? "batch=1" : "batch=8",
                                        std::string("dropout=") + (dropout ? "true" : "false")};
    const Graph g = loadModel(ModelRequest{"gpt", sets, std::nullopt}, 1);
    const Cluster c = clusterPreset("dgx-a100", 1);
    const Mesh mesh = Mesh::parse(tensorParallel ? "model=8" : "data=8");
    StepSettings settings;
    settings.recompute = recompute;
    const Plan plan = baselinePlan(g, mesh, strategy, settings);
    const CostModel model(g, c, mesh, plan.settings);
    return evaluate(model, plan)->memory.activations;
}

double perLayer(bool dropout, const std::string& strategy, Recompute recompute) {
    return activations(3, dropout, strategy, recompute) - activations(2, dropout, strategy, recompute);
}

} // namespace

class TestActivationMemory : public QObject {
    Q_OBJECT
private slots:
    void perLayerBytesAreKorthikantisFormulas_data() {
        QTest::addColumn<bool>("dropout");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<double>("expected");
        const int none = int(Recompute::None), selective = int(Recompute::Selective), full = int(Recompute::Full);
        // Without dropout their eq. 1 loses the two hidden dropouts' masks (sbh each) and the attention
        // dropout's mask and output (as^2b + 2as^2b): 32sbh + 2as^2b, the softmax output alone left.
        QTest::newRow("none") << false << QStringLiteral("dp") << none << sbh * (32 + 2 * a * s / h);
        QTest::newRow("TP") << false << QStringLiteral("megatron") << none << sbh * (8 + 24 / t + 2 * a * s / (h * t));
        QTest::newRow("TP+SP") << false << QStringLiteral("megatron-sp") << none << sbh * (32 / t + 2 * a * s / (h * t));
        QTest::newRow("TP+selective") << false << QStringLiteral("megatron") << selective << sbh * (8 + 24 / t);
        QTest::newRow("TP+SP+selective") << false << QStringLiteral("megatron-sp") << selective << sbh * 32 / t;
        QTest::newRow("full") << false << QStringLiteral("dp") << full << 2 * sbh;
        QTest::newRow("TP+SP+full") << false << QStringLiteral("megatron-sp") << full << 2 * sbh / t;
        // With dropout, Table 2 as printed.
        QTest::newRow("dropout none") << true << QStringLiteral("dp") << none << sbh * (34 + 5 * a * s / h);
        QTest::newRow("dropout TP") << true << QStringLiteral("megatron") << none << sbh * (10 + 24 / t + 5 * a * s / (h * t));
        QTest::newRow("dropout TP+SP") << true << QStringLiteral("megatron-sp") << none << sbh * (34 / t + 5 * a * s / (h * t));
        QTest::newRow("dropout TP+selective") << true << QStringLiteral("megatron") << selective << sbh * (10 + 24 / t);
        QTest::newRow("dropout TP+SP+selective") << true << QStringLiteral("megatron-sp") << selective << sbh * 34 / t;
        QTest::newRow("dropout full") << true << QStringLiteral("dp") << full << 2 * sbh;
        QTest::newRow("dropout TP+SP+full") << true << QStringLiteral("megatron-sp") << full << 2 * sbh / t;
    }
    void perLayerBytesAreKorthikantisFormulas() {
        QFETCH(bool, dropout);
        QFETCH(QString, strategy);
        QFETCH(int, recompute);
        QFETCH(double, expected);
        const double got = perLayer(dropout, strategy.toStdString(), Recompute(recompute));
        QVERIFY2(std::abs(got - expected) <= 1e-9 * expected,
                 qPrintable(QStringLiteral("%1 sbh per layer, formula %2 sbh").arg(got / sbh).arg(expected / sbh)));
    }
    void fullRecomputationAddsOneLayersWorkingSet() {
        // Full recomputation keeps one 2sbh checkpoint per layer, and while one layer is recomputed in
        // the backward its whole forward working set, (32 + 2as/h) sbh without dropout, is live on top
        // (less the checkpoint it was recomputed from, already counted). The ops outside the layers
        // are not recomputed and keep what they keep without recomputation.
        const int layers = 4;
        const double none = activations(layers, false, "dp", Recompute::None);
        const double full = activations(layers, false, "dp", Recompute::Full);
        const double layerNone = sbh * (32 + 2 * a * s / h);
        const double outside = none - layers * layerNone;
        const double expected = layers * 2 * sbh + (layerNone - 2 * sbh) + outside;
        QVERIFY2(std::abs(full - expected) <= 1e-9 * expected,
                 qPrintable(QStringLiteral("full %1 GB, expected %2 GB").arg(full / 1e9).arg(expected / 1e9)));
        QVERIFY(outside > 0);
    }
};

QTEST_GUILESS_MAIN(TestActivationMemory)
#include "tst_activation_memory.moc"
