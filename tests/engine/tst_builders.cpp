// Model builders against closed forms: parameter counts and FLOPs.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

#include <cmath>

using namespace shardscope;

namespace {

Graph preset(const std::string& name, std::vector<std::string> sets = {}) {
    return loadModel(ModelRequest{name, std::move(sets), std::nullopt}, 1);
}

double relErr(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

} // namespace

class TestBuilders : public QObject {
    Q_OBJECT
private slots:
    void publishedParameterCounts_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("published");
        QTest::newRow("gpt3-175b") << QStringLiteral("gpt3-175b") << 175.0e9;
        QTest::newRow("llama2-7b") << QStringLiteral("llama2-7b") << 6.74e9;
        QTest::newRow("gpt2-small") << QStringLiteral("gpt2-small") << 124e6;
        QTest::newRow("llama2-70b") << QStringLiteral("llama2-70b") << 68.98e9;
        QTest::newRow("mixtral-8x7b") << QStringLiteral("mixtral-8x7b") << 46.7e9;
        QTest::newRow("resnet50") << QStringLiteral("resnet50") << 25.56e6;
    }
    void publishedParameterCounts() {
        QFETCH(QString, model);
        QFETCH(double, published);
        const Graph g = preset(model.toStdString());
        QVERIFY2(relErr(g.parameterCount(), published) < 0.01,
                 qPrintable(QStringLiteral("%1 vs %2").arg(g.parameterCount()).arg(published)));
    }
    void gptParameterCountClosedForm() {
        // Per layer: QKV 3h^2, projection h^2, MLP 8h^2, two layer-norms 4h; token and position
        // tables v h + s h (the LM head is tied); final layer-norm 2h.
        const double L = 3, h = 256, s = 128, v = 1000;
        const Graph g = preset("gpt", {"layers=3", "hidden=256", "heads=4", "seq=128", "vocab=1000",
                                       "tie_embeddings=true"});
        QCOMPARE(g.parameterCount(), L * (12 * h * h + 4 * h) + v * h + s * h + 2 * h);
    }
    void gptFlopsMatchDenseTransformerClosedForm_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("gpt2-small") << QStringLiteral("gpt2-small");
        QTest::newRow("gpt3-1.3b") << QStringLiteral("gpt3-1.3b");
        QTest::newRow("gpt3-175b") << QStringLiteral("gpt3-175b");
    }
    void gptFlopsMatchDenseTransformerClosedForm() {
        // Narayanan et al. (2021), eq. for forward + backward without recomputation:
        // 72 B s L h^2 (1 + s / 6h + V / 12hL).
        QFETCH(QString, model);
        const ModelPreset& p = modelPreset(model.toStdString());
        const Graph g = preset(p.name);
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=8");
        const CostModel cm(g, c, mesh, StepSettings{});
        const auto e = evaluate(cm, baselinePlan(g, mesh, "dp", StepSettings{}));
        const double B = p.params.batch, s = p.params.seq, L = p.params.layers, h = p.params.hidden,
                     V = p.params.vocab;
        const double closed = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * h * L));
        QVERIFY2(relErr(e->flopsPerStep, closed) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(e->flopsPerStep).arg(closed)));
    }
    void huggingFaceConfigsBuildTheMatchingGraph() {
        const std::string dir = SHARDSCOPE_SOURCE_DIR "/samples/models/";
        const Graph llama = loadModel(ModelRequest{dir + "hf-llama/config.json", {}, std::nullopt}, 1);
        QCOMPARE(llama.parameterCount(), preset("llama2-7b").parameterCount());
        const Graph gpt2 = loadModel(ModelRequest{dir + "hf-gpt2/config.json", {}, std::nullopt}, 1);
        // Unpadded vocabulary 50257, tied: 124.44 M.
        QVERIFY(relErr(gpt2.parameterCount(), 124.44e6) < 0.001);
        const Graph mixtral = loadModel(ModelRequest{dir + "hf-mixtral/config.json", {}, std::nullopt}, 1);
        QCOMPARE(mixtral.parameterCount(), preset("mixtral-8x7b").parameterCount());
    }
    void microbatchesDivideTheBatch() {
        const Graph g = loadModel(ModelRequest{"gpt", {}, 8}, 4);
        QCOMPARE(g.tensor(*g.findTensor("tokens")).shape.front(), std::int64_t(2));
        QVERIFY_THROWS_EXCEPTION(InputError, loadModel(ModelRequest{"gpt", {}, 8}, 3));
    }
    void badParametersAreRejected_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("expected");
        QTest::newRow("heads") << QStringLiteral("heads=7") << QStringLiteral("does not divide hidden");
        QTest::newRow("unknown") << QStringLiteral("depth=3") << QStringLiteral("unknown model parameter");
        QTest::newRow("value") << QStringLiteral("layers=x") << QStringLiteral("positive integer");
    }
    void badParametersAreRejected() {
        QFETCH(QString, set);
        QFETCH(QString, expected);
        try {
            preset("gpt", {set.toStdString()});
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
        }
    }
    void unknownPresetListsKnownOnes() {
        try {
            preset("gpt5");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("gpt3-175b")));
        }
    }
};

QTEST_GUILESS_MAIN(TestBuilders)
#include "tst_builders.moc"
