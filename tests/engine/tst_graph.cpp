// Graph validation and derived facts (docs/DESIGN.md, Graph IR): one producer per tensor, no cycles, FLOPs.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "graph_text.h"

#include "engine/io/model_file.h"
#include "engine/ir/graph.h"
#include "engine/util/error.h"

using namespace shardscope;

namespace {

TensorId tensor(Graph& g, const std::string& name, std::vector<std::int64_t> shape, TensorRole role) {
    return g.addTensor(Tensor{name, std::move(shape), DType::BF16, role, {}, {}});
}

OpId op(Graph& g, const std::string& name, OpKind kind, const std::string& rule, std::vector<TensorId> in,
        std::vector<TensorId> out) {
    Op o;
    o.name = name;
    o.kind = kind;
    o.rule = ShardingRule::parse(rule);
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    return g.addOp(std::move(o));
}

QString failure(Graph& g) {
    try {
        g.finalize();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    void linearChainOrdersAndCountsFlops() {
        Graph g;
        const TensorId x = tensor(g, "x", {4, 8}, TensorRole::Input);
        const TensorId w = tensor(g, "w", {8, 16}, TensorRole::Parameter);
        const TensorId y = tensor(g, "y", {4, 16}, TensorRole::Activation);
        const TensorId z = tensor(g, "z", {4, 16}, TensorRole::Activation);
        // Added out of order: the relu first.
        op(g, "relu", OpKind::Relu, "([b,f])->([b,f])", {y}, {z});
        op(g, "fc", OpKind::MatMul, "([b,h],[h,f])->([b,f])", {x, w}, {y});
        g.finalize();
        QCOMPARE(g.topoOrder().size(), std::size_t(2));
        QCOMPARE(g.op(g.topoOrder()[0]).name, std::string("fc"));
        // 2 x b x h x f for the contraction; one FLOP per output element for ReLU.
        QCOMPARE(g.forwardFlops(*g.findOp("fc")), 2.0 * 4 * 8 * 16);
        QCOMPARE(g.forwardFlops(*g.findOp("relu")), 4.0 * 16);
        QCOMPARE(g.parameterCount(), 8.0 * 16);
        QCOMPARE(g.parameterOwner(w), *g.findOp("fc"));
    }
    void cycleIsRejected() {
        Graph g;
        const TensorId a = tensor(g, "a", {4}, TensorRole::Activation);
        const TensorId b = tensor(g, "b", {4}, TensorRole::Activation);
        op(g, "f", OpKind::Relu, "([n])->([n])", {a}, {b});
        op(g, "g", OpKind::Relu, "([n])->([n])", {b}, {a});
        QVERIFY2(failure(g).contains(QStringLiteral("cycle")), qPrintable(failure(g)));
    }
    void twoProducersAreRejected() {
        Graph g;
        const TensorId x = tensor(g, "x", {4}, TensorRole::Input);
        const TensorId y = tensor(g, "y", {4}, TensorRole::Activation);
        op(g, "f", OpKind::Relu, "([n])->([n])", {x}, {y});
        op(g, "g", OpKind::Relu, "([n])->([n])", {x}, {y});
        const QString e = failure(g);
        QVERIFY2(e.contains(QStringLiteral("op 'g'")) && e.contains(QStringLiteral("already produced")), qPrintable(e));
    }
    void shapeMismatchNamesOpAndField() {
        Graph g;
        const TensorId x = tensor(g, "x", {4, 8}, TensorRole::Input);
        const TensorId w = tensor(g, "w", {9, 16}, TensorRole::Parameter);
        const TensorId y = tensor(g, "y", {4, 16}, TensorRole::Activation);
        op(g, "fc", OpKind::MatMul, "([b,h],[h,f])->([b,f])", {x, w}, {y});
        const QString e = failure(g);
        QVERIFY2(e.contains(QStringLiteral("op 'fc'")) && e.contains(QStringLiteral("field 'rule'")), qPrintable(e));
    }
    void activationWithoutProducer() {
        Graph g;
        tensor(g, "orphan", {4}, TensorRole::Activation);
        QVERIFY(failure(g).contains(QStringLiteral("'orphan'")));
    }
    void textFixtureReadsAsTheModelFileItTranscribes() {
        // tests/fixtures/graphs/two-layer-mlp.graph.txt transcribes samples/models/two-layer-mlp.model.json:
        // the same tensors, ops, rules, blocks and hints, so the compact fixtures stand for model files.
        const Graph text = testing::graphFixture("two-layer-mlp");
        const Graph file = loadModel(ModelRequest{SHARDSCOPE_SOURCE_DIR "/samples/models/two-layer-mlp.model.json", {}, {}}, 1);
        QCOMPARE(text.name, file.name);
        QCOMPARE(text.tensors().size(), file.tensors().size());
        for (std::size_t t = 0; t < file.tensors().size(); ++t) {
            QCOMPARE(text.tensors()[t].name, file.tensors()[t].name);
            QCOMPARE(text.tensors()[t].shape, file.tensors()[t].shape);
            QCOMPARE(text.tensors()[t].dtype, file.tensors()[t].dtype);
            QCOMPARE(text.tensors()[t].role, file.tensors()[t].role);
        }
        QCOMPARE(text.ops().size(), file.ops().size());
        for (std::size_t o = 0; o < file.ops().size(); ++o) {
            const Op& a = text.ops()[o];
            const Op& b = file.ops()[o];
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.kind, b.kind);
            QCOMPARE(a.rule.toString(), b.rule.toString());
            QCOMPARE(a.block, b.block);
            QCOMPARE(a.hints.batch, b.hints.batch);
            QCOMPARE(a.hints.tensor, b.hints.tensor);
            QCOMPARE(a.inputs, b.inputs);
            QCOMPARE(a.outputs, b.outputs);
        }
        QCOMPARE(text.parameterCount(), file.parameterCount());
        // A line it cannot read is named by fixture and line.
        try {
            testing::graphFromText("model m\ntensor x 4 input\nop f relu x y\n", "inline");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("inline:3")), e.what());
        }
    }
    void hintMustNameAFactor() {
        Graph g;
        const TensorId x = tensor(g, "x", {4}, TensorRole::Input);
        const TensorId y = tensor(g, "y", {4}, TensorRole::Activation);
        const OpId o = op(g, "f", OpKind::Relu, "([n])->([n])", {x}, {y});
        g.mutableOp(o).hints.tensor = "q";
        QVERIFY(failure(g).contains(QStringLiteral("hints.tensor")));
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"
