// ONNX import (engine/onnx): PyTorch modules exported by torch.onnx (tests/onnx/make_fixtures.py,
// weights dropped) import with the shapes, parameters and FLOPs their definitions give, the
// exporters' patterns fused, attention and repeated layers recognised; impossible files are refused
// naming the node; every file of Debian's ONNX test corpus imports or is refused with a reason.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/onnx/onnx_import.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

using namespace shardscope;

namespace {

const std::string kFixtures = SHARDSCOPE_SOURCE_DIR "/tests/onnx/fixtures/";

OnnxImport load(const char* name, std::vector<std::string> sets, int microbatches = 1) {
    return importOnnx(kFixtures + name + ".onnx", std::move(sets), std::nullopt, microbatches);
}

int countKind(const Graph& g, OpKind k) {
    return int(std::count_if(g.ops().begin(), g.ops().end(), [&](const Op& op) { return op.kind == k; }));
}

double contractionFlops(const Graph& g) {
    double f = 0;
    for (std::size_t o = 0; o < g.ops().size(); ++o)
        if (g.ops()[o].kind == OpKind::MatMul)
            f += g.forwardFlops(OpId(o));
    return f;
}

std::string refusal(const char* name, std::vector<std::string> sets) {
    try {
        load(name, std::move(sets));
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestOnnxImport : public QObject {
    Q_OBJECT
private slots:
    void mlpIsTwoLinearLayers() {
        // Linear(1024, 4096) -> ReLU -> Linear(4096, 1024), exported as Gemm (transB = 1: weights [out, in]).
        const OnnxImport m = load("mlp", {"batch=32"});
        const Graph& g = m.graph;
        QCOMPARE(int(g.ops().size()), 3);
        QCOMPARE(g.parameterCount(), 1024.0 * 4096 + 4096 + 4096.0 * 1024 + 1024);
        const Op& fc1 = g.ops().front();
        QCOMPARE(fc1.kind, OpKind::MatMul);
        QCOMPARE(QString::fromStdString(fc1.rule.toString()).section(QLatin1Char(' '), 0, 0),
                 QStringLiteral("([d0,k0],[d1,k0],[d1])->([d0,d1])"));
        QCOMPARE(g.forwardFlops(OpId(0)), 2.0 * 32 * 1024 * 4096);
        QCOMPARE(fc1.hints.batch, std::string("d0"));
        QVERIFY(m.opaque.empty());
        // Data parallelism splits the batch of every op, as for a built-in model.
        const Mesh mesh = Mesh::parse("data=8");
        const Plan dp = baselinePlan(g, mesh, "dp", StepSettings{});
        for (std::size_t o = 0; o < g.ops().size(); ++o)
            QVERIFY(dp.ops[o].strategy.factorOfAxis[0] >= 0);
    }

    void encoderFusesPatternsAndFindsAttention() {
        // Two pre-norm blocks of hidden 256, 8 heads, vocabulary 1000; batch 4 of 64 tokens.
        const double B = 4, s = 64, h = 256, V = 1000, L = 2;
        const OnnxImport m = load("encoder2", {"batch=4", "seq=64"});
        const Graph& g = m.graph;
        QVERIFY(m.opaque.empty());
        QCOMPARE(countKind(g, OpKind::LayerNorm), 5); // ReduceMean/Sub/Pow/.../Add patterns fused
        QCOMPARE(countKind(g, OpKind::Gelu), 2);      // x/2 (1 + erf(x / sqrt 2)) fused
        QCOMPARE(countKind(g, OpKind::Embedding), 1);
        int attention = 0;
        for (const Op& op : g.ops())
            attention += op.attentionCore && op.kind == OpKind::MatMul;
        QCOMPARE(attention, 4); // scores and context of each layer
        // Parameters: embedding V h; per layer 2 norms (2h each), QKV h 3h + 3h, projection h h + h,
        // MLP h 4h + 4h + 4h h + h; final norm 2h; head h V.
        const double layer = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (4 * h * h + 4 * h + 4 * h * h + h);
        QCOMPARE(g.parameterCount(), V * h + L * layer + 2 * h + h * V);
        // Contractions: 24 B s h^2 per layer, attention 4 B s^2 h per layer, head 2 B s h V.
        QCOMPARE(contractionFlops(g), L * (24 * B * s * h * h + 4 * B * s * s * h) + 2 * B * s * h * V);
        // The head split is a reshape of hidden into (heads, head size): a split of h splits the heads.
        bool heads = false;
        for (const Op& op : g.ops())
            if (op.kind == OpKind::Reshape && op.rule.inputs[0].size() == 3 && op.rule.inputs[0][2].size() == 2)
                heads = true;
        QVERIFY(heads);
    }

    void twentyLayersFoldIntoOneBlock() {
        const OnnxImport two = load("encoder2", {"batch=2", "seq=32"});
        const OnnxImport twenty = load("encoder20", {"batch=2", "seq=32"});
        const auto blocks = findRepeatedBlocks(twenty.graph);
        QVERIFY(blocks.has_value());
        QCOMPARE(blocks->count(), 20);
        QCOMPARE(blocks->period(), findRepeatedBlocks(two.graph)->period());
    }

    void convolutionalNetworks() {
        // ResNet-18 layout: 11,689,512 trainable parameters (torchvision's count) plus the batch norms'
        // running mean and variance, 2 x 4,800 channels.
        const OnnxImport resnet = load("resnet18", {"batch=16"});
        QVERIFY(resnet.opaque.empty());
        QCOMPARE(resnet.graph.parameterCount(), 11689512.0 + 2 * 4800);
        QCOMPARE(countKind(resnet.graph, OpKind::Conv2d), 20);
        QCOMPARE(countKind(resnet.graph, OpKind::BatchNorm), 20);
        // The stem: 7x7 stride 2 over 64x64 -> 32x32: the input's spatial dims are (P, 2) of the output's.
        const Op& stem = resnet.graph.ops().front();
        QCOMPARE(stem.rule.inputs[0][2].size(), std::size_t(2));
        QCOMPARE(*stem.flops, 2.0 * 16 * 64 * 32 * 32 * 3 * 7 * 7);
        // Inception-A: four branches joined by a channel concatenation of 64 + 128 + 32 + 32.
        const OnnxImport inception = load("inception_block", {"batch=4"});
        QCOMPARE(countKind(inception.graph, OpKind::Concat), 1);
        QCOMPARE(inception.graph.parameterCount(),
                 (192.0 * 64 + 64) + (192.0 * 96 + 96) + (96.0 * 128 * 9 + 128) + (192.0 * 16 + 16) + (16.0 * 32 * 25 + 32) +
                     (192.0 * 32 + 32));
    }

    void microBatchesDivideTheBoundBatch() {
        const OnnxImport m = load("mlp", {"batch=32"}, 4);
        QCOMPARE(m.graph.tensors().front().shape.front(), std::int64_t(8));
        QVERIFY(refusal("mlp", {"batch=30"}).empty());
        try {
            load("mlp", {"batch=30"}, 4);
            QFAIL("4 micro-batches of 30");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("does not divide batch 30") != std::string::npos);
        }
    }

    void unmappedOpsStayWholeAndAreListed() {
        const OnnxImport m = load("custom_op", {"batch=8"});
        QCOMPARE(int(m.opaque.size()), 1);
        QCOMPARE(m.opaque.front().first, std::string("frob"));
        QCOMPARE(m.opaque.front().second, std::string("Frobnicate"));
        const Op& frob = m.graph.op(*m.graph.findOp("frob"));
        QCOMPARE(frob.kind, OpKind::Opaque);
        for (const Factor& f : frob.rule.factors)
            QCOMPARE(f.type, FactorType::Fixed);
        // Priced by its bytes: it takes time, and the evaluation runs.
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=8");
        const CostModel cm(m.graph, c, mesh, StepSettings{});
        QVERIFY(evaluate(cm, baselinePlan(m.graph, mesh, "dp", StepSettings{}))->stepTime > 0);
    }

    void impossibleFilesNameTheProblem() {
        QVERIFY(refusal("missing_input", {"batch=2"}).find("node 'add_ghost' (Add) reads 'ghost', which no node") != std::string::npos);
        QVERIFY(refusal("cycle", {"batch=2"}).find("cycle through node") != std::string::npos);
        const std::string unbound = refusal("encoder2", {});
        QVERIFY2(unbound.find("input 'input' dimension 0 is 'batch'") != std::string::npos, unbound.c_str());
        QVERIFY(refusal("mlp", {"batch=x"}).find("positive integer") != std::string::npos);
        QTemporaryDir dir;
        const QString garbage = dir.filePath(QStringLiteral("garbage.onnx"));
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\\x08\\x07 this is not a protobuf \\xff\\xff\\xff");
        f.close();
        try {
            importOnnx(garbage.toStdString(), {}, std::nullopt, 1);
            QFAIL("imported garbage");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("garbage.onnx: not an ONNX model") != std::string::npos, e.what());
        }
    }

    void debiansTestCorpusImportsOrIsRefusedWithAReason() {
        // libonnx-testdata (installed by test.sh): about a thousand one-op and small models. Each
        // imports, or throws InputError naming the file; nothing else escapes, nothing crashes.
        const QString corpus = QStringLiteral("/usr/share/libonnx-testdata/data");
        if (!QFile::exists(corpus))
            QSKIP("libonnx-testdata is not installed (test.sh installs it)");
        int imported = 0, refused = 0;
        QDirIterator it(corpus, {QStringLiteral("*.onnx")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const std::string path = it.next().toStdString();
            try {
                importOnnx(path, {"batch=2", "seq=8"}, std::nullopt, 1);
                ++imported;
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).rfind(path + ": ", 0) == 0, e.what());
                ++refused;
            }
        }
        qInfo("libonnx-testdata: %d imported, %d refused with a reason", imported, refused);
        QVERIFY(imported + refused > 900);
        QVERIFY(imported > 9 * refused);
    }
};

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "tst_onnx_import.moc"
