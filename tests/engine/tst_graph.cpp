// Graph validation and derived facts (docs/DESIGN.md, Graph IR): one producer per tensor, no cycles, FLOPs.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

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
