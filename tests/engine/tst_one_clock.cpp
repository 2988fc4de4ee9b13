// One clock (docs/DESIGN.md, Overlap): on every plan the benchmark searches return and on every
// registry baseline on their meshes (published batches, 8 to 16,384 GPUs, pipelines interleaved or
// not, ZeRO 0-3), with overlap on and off, the analytic step the search ranks by agrees with the
// simulated step the user sees within 3%, and the simulator without timelines (compute chains) gives
// the same step and peak as with them.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/bench/one_clock.h"

#include <algorithm>
#include <cmath>

using namespace shardscope;

class TestOneClock : public QObject {
    Q_OBJECT
private slots:
    void analyticAndSimulatedStepsAgree() {
        const std::vector<bench::ClockRow> rows = bench::oneClockWalk({});
        QVERIFY(rows.size() > 300);
        QVERIFY(std::any_of(rows.begin(), rows.end(), [](const bench::ClockRow& r) { return !r.overlap; }));
        QVERIFY(std::any_of(rows.begin(), rows.end(),
                            [](const bench::ClockRow& r) { return r.mesh.find("pipe=") != std::string::npos; }));
        QVERIFY(std::any_of(rows.begin(), rows.end(), [](const bench::ClockRow& r) { return r.tpOverlap == TpOverlap::Full; }));
        const auto worst = std::max_element(rows.begin(), rows.end(), [](const bench::ClockRow& a, const bench::ClockRow& b) {
            return a.disagreement() < b.disagreement();
        });
        qInfo("worst of %zu plans: %s, %s on %s, overlap %s: analytic %.6g s, simulated %.6g s", rows.size(),
              worst->scenario.c_str(), worst->plan.c_str(), worst->mesh.c_str(), worst->overlapText().c_str(),
              worst->analytic, worst->simulated);
        // The search skips composing plans by their lower bound: it must never exceed the step.
        double tightest = 0;
        for (const bench::ClockRow& r : rows) {
            QVERIFY2(r.lowerBound > 0 && r.lowerBound <= r.analytic * (1 + 1e-9),
                     qPrintable(QString::fromStdString(r.scenario + ", " + r.plan + " on " + r.mesh + ": lower bound " +
                                                       std::to_string(r.lowerBound) + " s above the step " +
                                                       std::to_string(r.analytic) + " s")));
            tightest = std::max(tightest, r.lowerBound / r.analytic);
        }
        qInfo("lower bounds: at most %.4g of the step", tightest);
        // Without timelines the simulator runs compute chains as one task (step_program.h): the same
        // step and peak on every plan, to rounding.
        for (const bench::ClockRow& r : rows) {
            QVERIFY2(std::abs(r.chained - r.simulated) <= 1e-9 * r.simulated &&
                         std::abs(r.chainedPeak - r.simulatedPeak) <= 1e-9 * r.simulatedPeak,
                     qPrintable(QString::fromStdString(r.scenario + ", " + r.plan + " on " + r.mesh + ", overlap " +
                                                       r.overlapText() + ": step " + std::to_string(r.simulated) +
                                                       " s with timelines, " + std::to_string(r.chained) +
                                                       " s in chains; peak " + std::to_string(r.simulatedPeak) +
                                                       " B, " + std::to_string(r.chainedPeak) + " B")));
        }
        // Tensor-parallel overlap (the "on+tp" rows) is not yet one clock: on the small-GEMM gpt fixed
        // width rows the analytic step is up to 7.4% above the simulated (README, one clock; open in
        // issue 38). Those rows are held to 8%, every other to 3%.
        for (const bench::ClockRow& r : rows)
            QVERIFY2(r.disagreement() <= (r.tpOverlap == TpOverlap::Off ? 0.03 : 0.08),
                     qPrintable(QString::fromStdString(r.scenario + ", " + r.plan + " on " + r.mesh + ", overlap " + r.overlapText() + ": " +
                                                       "analytic " + std::to_string(r.analytic) + " s, simulated " +
                                                       std::to_string(r.simulated) + " s")));
    }
};

QTEST_GUILESS_MAIN(TestOneClock)
#include "tst_one_clock.moc"
