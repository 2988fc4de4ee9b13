// The benchmark's target checks on hand-made rows: each kind of target met, missed by a little, and
// the phrases that say by how much.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/bench/bench_suite.h"

using namespace shardscope;
using namespace shardscope::bench;

namespace {

BenchRow row(const std::string& name, double median, BenchTarget target) {
    BenchRow r;
    r.name = name;
    r.algorithm = "tapas";
    r.medianSeconds = median;
    r.solveSeconds = median / 2;
    r.target = std::move(target);
    return r;
}

QString joined(const std::vector<std::string>& misses) {
    QStringList out;
    for (const std::string& m : misses)
        out << QString::fromStdString(m);
    return out.join(QStringLiteral("; "));
}

} // namespace

class TestBenchTargets : public QObject {
    Q_OBJECT
private slots:
    void timeTargetIsStrict() {
        const BenchTarget t = BenchTarget::timeUnder("under 1 s", 1.0);
        QVERIFY(targetMisses(row("a", 0.999, t), {}).empty());
        const auto at = targetMisses(row("a", 1.0, t), {});
        QCOMPARE(at.size(), std::size_t(1)); // "under": exactly 1 s misses
        const auto over = targetMisses(row("a", 2.094, t), {});
        QCOMPARE(over.size(), std::size_t(1));
        QVERIFY2(joined(over).contains(QStringLiteral("2.094 s")), qPrintable(joined(over)));
    }

    void qualityTargetReadsTheBaseline() {
        BenchTarget t = BenchTarget::timeUnder("quality", 1.0);
        t.maxVsBaseline = 1.0;
        t.fitsWhenBaselineFits = true;
        BenchRow r = row("q", 0.5, t);
        r.stepTime = 10.0;
        r.baselineStepTime = 10.0;
        r.baselineFeasible = true;
        r.feasible = true;
        QVERIFY(targetMisses(r, {}).empty());
        // 1% slower than the baseline: 10.1 / 10.0 = 1.010 over 1.00.
        r.stepTime = 10.1;
        auto misses = targetMisses(r, {});
        QCOMPARE(misses.size(), std::size_t(1));
        QVERIFY2(joined(misses).contains(QStringLiteral("1.010")), qPrintable(joined(misses)));
        // Not fitting where the baseline fits, and slow: two misses.
        r.stepTime = 9.0;
        r.feasible = false;
        r.medianSeconds = 1.5;
        misses = targetMisses(r, {});
        QCOMPARE(misses.size(), std::size_t(2));
        // A baseline that does not fit constrains nothing.
        r.baselineFeasible = false;
        r.medianSeconds = 0.5;
        r.stepTime = 20.0;
        QVERIFY(targetMisses(r, {}).empty());
    }

    void growthTargetComparesTheSolvesOfTheNamedRowOfTheSameAlgorithm() {
        BenchTarget grow = BenchTarget::described("grows < 1.5x");
        grow.growthOver = "24 layers";
        grow.maxGrowth = 1.5;
        std::vector<BenchRow> rows{row("24 layers", 0.100, BenchTarget::described("")),
                                   row("24 layers", 0.010, BenchTarget::described("contrast")),
                                   row("192 layers", 0.150, grow)};
        rows[1].algorithm = "pase"; // another algorithm's row of the same name is not the reference
        markMisses(rows);
        QVERIFY2(rows[2].misses.empty(), qPrintable(joined(rows[2].misses))); // solves 0.075 / 0.050 = 1.5: met
        rows[2].solveSeconds = 0.0755; // 0.0755 / 0.050 = 1.51x
        markMisses(rows);
        QCOMPARE(rows[2].misses.size(), std::size_t(1));
        QVERIFY2(joined(rows[2].misses).contains(QStringLiteral("1.51x")), qPrintable(joined(rows[2].misses)));
        QVERIFY(rows[0].misses.empty() && rows[1].misses.empty());
        rows.erase(rows.begin(), rows.begin() + 2);
        markMisses(rows);
        QCOMPARE(rows[0].misses.size(), std::size_t(1)); // the reference row is missing: said, not ignored
    }
};

QTEST_GUILESS_MAIN(TestBenchTargets)
#include "tst_bench_targets.moc"
