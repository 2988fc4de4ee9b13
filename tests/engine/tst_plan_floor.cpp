// The floor property on every plan-quality scenario (published batches, 8 to 512 GPUs): the
// searched plan, with every step setting open, is never slower than the best named baseline found by
// full evaluation of every registry entry on every candidate mesh with every recomputation and
// micro-batch count, and it fits whenever that baseline fits. The baseline side is evaluate(), not
// the search's own floor pass, so the two are priced independently. Each row's re-search after an
// edit (one op locked), started from the search's bounds, answers what a search from scratch does.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/bench/bench_suite.h"

#include <cmath>

using namespace shardscope;

class TestPlanFloor : public QObject {
    Q_OBJECT
private slots:
    void searchedPlanIsNeverWorseThanTheBestBaseline() {
        const std::vector<bench::BenchRow> rows = bench::runPlanQuality(1, {});
        QCOMPARE(rows.size(), std::size_t(10));
        for (const bench::BenchRow& row : rows) {
            const QString what = QString::fromStdString(row.name + ": searched " + std::to_string(row.stepTime) +
                                                        " s, best baseline " + row.baselineName + " " +
                                                        std::to_string(row.baselineStepTime) + " s");
            // Re-search after an edit from the search's bounds answers what a search from scratch does.
            if (row.reSearchSeconds) {
                QVERIFY2(row.reSearchIncremental, qPrintable(what));
                QVERIFY2(std::abs(row.reSearchStep - row.scratchStep) <= 1e-9 * row.scratchStep,
                         qPrintable(what + QStringLiteral(": re-search %1 s, from scratch %2 s")
                                               .arg(row.reSearchStep, 0, 'g', 12)
                                               .arg(row.scratchStep, 0, 'g', 12)));
            }
            if (!row.baselineFeasible)
                continue;
            QVERIFY2(row.feasible, qPrintable(what));
            QVERIFY2(row.peakMemory <= row.capacity, qPrintable(what));
            QVERIFY2(row.stepTime <= row.baselineStepTime * (1 + 1e-9), qPrintable(what));
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanFloor)
#include "tst_plan_floor.moc"
