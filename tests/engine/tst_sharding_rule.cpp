// Parsing, typing and shape binding of factor rules (docs/DESIGN.md, Graph IR).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/ir/sharding_rule.h"
#include "engine/util/error.h"

using namespace shardscope;

class TestShardingRule : public QObject {
    Q_OBJECT
private slots:
    void linearTypesFollowPresence() {
        const ShardingRule r = ShardingRule::parse("([b,s,h],[h,f])->([b,s,f]) {b=8,s=2048,h=4096,f=16384}");
        QCOMPARE(r.factors.size(), std::size_t(4));
        QCOMPARE(r.factors[r.findFactor("h")].type, FactorType::Reduction);
        QCOMPARE(r.factors[r.findFactor("f")].type, FactorType::Parallel);
        QCOMPARE(r.factors[r.findFactor("b")].size, std::int64_t(8));
        QCOMPARE(r.iterationSpace(), 8.0 * 2048 * 4096 * 16384);
    }
    void explicitTypes() {
        const ShardingRule r = ShardingRule::parse("([b,s],[v,h])->([b,s,h]) {v:gather}");
        QCOMPARE(r.factors[r.findFactor("v")].type, FactorType::Gather);
        const ShardingRule c = ShardingRule::parse(
            "([n,c,H,W],[k,c,r,q])->([n,k,H,W]) {H:halo,W:halo,r:fixed,q:fixed}");
        QCOMPARE(c.factors[c.findFactor("c")].type, FactorType::Reduction);
        QCOMPARE(c.factors[c.findFactor("H")].type, FactorType::Halo);
        QVERIFY(!c.splittable(c.findFactor("r")));
        QVERIFY(c.splittable(c.findFactor("c")));
    }
    void compoundDimensionMapsMajorFactor() {
        ShardingRule r = ShardingRule::parse("([b,s,(n,d)])->([b,s,n,d])");
        QCOMPARE(r.bindShapes({{2, 8, 64}}, {{2, 8, 4, 16}}), std::string());
        QCOMPARE(r.factors[r.findFactor("n")].size, std::int64_t(4));
        QCOMPARE(r.factors[r.findFactor("d")].size, std::int64_t(16));
        QVERIFY(r.splittable(r.findFactor("n")));
        QVERIFY(!r.splittable(r.findFactor("d"))); // minor part of (n,d)
    }
    void roundTrip_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("linear") << QStringLiteral("([b,s,h],[h,f])->([b,s,f]) {b=2,s=4,h=8,f=16}");
        QTest::newRow("softmax") << QStringLiteral("([b,t])->([b,t]) {b=2,t=4:local}");
        QTest::newRow("reshape") << QStringLiteral("([b,(n,d)])->([b,n,d]) {b=2,n=4,d=8}");
        QTest::newRow("slice") << QStringLiteral("([b,j])->([b,r]) {b=2,j=3:fixed,r=1:fixed}");
    }
    void roundTrip() {
        QFETCH(QString, text);
        const ShardingRule r = ShardingRule::parse(text.toStdString());
        QCOMPARE(QString::fromStdString(r.toString()), text);
        QCOMPARE(ShardingRule::parse(r.toString()).toString(), r.toString());
    }
    void bindShapesReportsMismatch() {
        ShardingRule r = ShardingRule::parse("([b,h],[h,f])->([b,f])");
        const std::string e = r.bindShapes({{4, 8}, {9, 16}}, {{4, 16}});
        QVERIFY2(e.find("input 1 dimension 0") != std::string::npos, e.c_str());
    }
    void outputOnlyFactorMustBeFixed() {
        ShardingRule r = ShardingRule::parse("([b])->([b,z])");
        const std::string e = r.bindShapes({{4}}, {{4, 2}});
        QVERIFY2(e.find("'z' appears only in outputs") != std::string::npos, e.c_str());
    }
    void parseErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no arrow") << QStringLiteral("([b,h])([b])") << QStringLiteral("expected '->'");
        QTest::newRow("bad type") << QStringLiteral("([b])->([b]) {b:wide}") << QStringLiteral("unknown factor type");
        QTest::newRow("stray factor") << QStringLiteral("([b])->([b]) {c=2}") << QStringLiteral("not used");
        QTest::newRow("trailing") << QStringLiteral("([b])->([b]) x") << QStringLiteral("unexpected text");
    }
    void parseErrors() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            ShardingRule::parse(text.toStdString());
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestShardingRule)
#include "tst_sharding_rule.moc"
