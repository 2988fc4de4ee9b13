// Op strategies: validity, enumeration and the tensor shardings they imply (docs/DESIGN.md, Sharding and resharding; One training step).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/sharding/strategy.h"

using namespace shardscope;

namespace {

Op linear(std::int64_t b, std::int64_t h, std::int64_t f) {
    Op op;
    op.name = "fc";
    op.rule = ShardingRule::parse("([b,h],[h,f])->([b,f])");
    op.rule.bindShapes({{b, h}, {h, f}}, {{b, f}});
    return op;
}

OpStrategy split(const Op& op, std::initializer_list<const char*> factors) {
    OpStrategy s;
    for (const char* f : factors)
        s.factorOfAxis.push_back(f ? op.rule.findFactor(f) : -1);
    return s;
}

} // namespace

class TestStrategy : public QObject {
    Q_OBJECT
private slots:
    void enumerationCount() {
        // Mesh data=2,model=4, factors b, h, f: each axis takes one of {none, b, h, f}: 4 x 4 = 16.
        const Mesh mesh = Mesh::parse("data=2,model=4");
        QCOMPARE(enumerateStrategies(linear(8, 16, 32), mesh).size(), std::size_t(16));
        // With b = 2, model (4) may not split b, alone or together with data: 16 - 4 = 12.
        QCOMPARE(enumerateStrategies(linear(2, 16, 32), mesh).size(), std::size_t(12));
        QCOMPARE(enumerateStrategies(linear(8, 16, 32), mesh).front(), OpStrategy::replicated(2));
    }
    void divisibilityIsChecked() {
        const Op op = linear(6, 16, 32);
        const Mesh mesh = Mesh::parse("data=4");
        const std::string e = verifyStrategy(op, mesh, split(op, {"b"}));
        QVERIFY2(e.find("not divisible by 4") != std::string::npos, e.c_str());
    }
    void columnSplit() {
        // {model: f}: W split on dim 1, Y on f, not partial; dX is partial on model.
        const Op op = linear(8, 16, 32);
        const Mesh mesh = Mesh::parse("model=4");
        const OpStrategy s = split(op, {"f"});
        QCOMPARE(inputSharding(op, 1, s).dims, (std::vector<AxisSet>{0, 1}));
        QCOMPARE(outputSharding(op, 0, s).dims, (std::vector<AxisSet>{0, 1}));
        QCOMPARE(outputSharding(op, 0, s).partial, AxisSet(0));
        QCOMPARE(inputGradientPartial(op, 0, s), AxisSet(1));
        QCOMPARE(inputGradientPartial(op, 1, s), AxisSet(0));
    }
    void rowSplit() {
        // {model: h}: X split on h, W on dim 0, Y partial on model.
        const Op op = linear(8, 16, 32);
        const OpStrategy s = split(op, {"h"});
        QCOMPARE(inputSharding(op, 0, s).dims, (std::vector<AxisSet>{0, 1}));
        QCOMPARE(outputSharding(op, 0, s).partial, AxisSet(1));
    }
    void dataSplitMakesWeightGradientPartial() {
        // {data: b}: dW sums over b, so it is partial on data (the data-parallel gradient all-reduce).
        const Op op = linear(8, 16, 32);
        const OpStrategy s = split(op, {"b"});
        QCOMPARE(inputGradientPartial(op, 1, s), AxisSet(1));
        QCOMPARE(inputGradientPartial(op, 0, s), AxisSet(0));
    }
    void reshapeCarriesSplitToMajorFactor() {
        // [b,(n,d)] -> [b,n,d]: a split of n is a split of the input's h dimension; d cannot be split.
        Op op;
        op.name = "reshape";
        op.rule = ShardingRule::parse("([b,(n,d)])->([b,n,d])");
        op.rule.bindShapes({{4, 64}}, {{4, 8, 8}});
        const Mesh mesh = Mesh::parse("model=4");
        const OpStrategy s = split(op, {"n"});
        QVERIFY(verifyStrategy(op, mesh, s).empty());
        QCOMPARE(inputSharding(op, 0, s).dims, (std::vector<AxisSet>{0, 1}));
        QVERIFY(!verifyStrategy(op, mesh, split(op, {"d"})).empty());
    }
    void twoAxesOnOneFactor() {
        const Op op = linear(8, 16, 32);
        const Mesh mesh = Mesh::parse("data=2,model=4");
        const OpStrategy s = split(op, {"b", "b"});
        QVERIFY(verifyStrategy(op, mesh, s).empty());
        QCOMPARE(outputSharding(op, 0, s).dims.front(), AxisSet(3));
        QCOMPARE(localFraction(outputSharding(op, 0, s), mesh), 1.0 / 8);
        QCOMPARE(QString::fromStdString(s.toString(op.rule, mesh)), QStringLiteral("data:b model:b"));
    }
};

QTEST_GUILESS_MAIN(TestStrategy)
#include "tst_strategy.moc"
