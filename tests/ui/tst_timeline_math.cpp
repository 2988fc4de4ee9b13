// The plain geometry behind the timeline and cluster views: time <-> x mapping, zoom and pan,
// ticks; level-of-detail bucketing of a lane; the rows; the schedule diagram's units; the cluster
// layout.

#include <QTest>

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/pipeline/schedule_order.h"
#include "engine/plans/baselines.h"

#include "cluster/cluster_layout.h"
#include "timeline/lane_buckets.h"
#include "timeline/time_axis.h"
#include "timeline/schedule_units.h"
#include "timeline/timeline_data.h"
#include "timeline/timeline_rows.h"

using namespace shardscope::ui;

Q_DECLARE_METATYPE(std::vector<Span>)
Q_DECLARE_METATYPE(std::vector<Bucket>)

namespace {
bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }
} // namespace

class TestTimelineMath : public QObject {
    Q_OBJECT
private slots:
    void mapsTimeToXAndBack_data() {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("secondsPerPixel");
        QTest::addColumn<double>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << 0.0 << 1e-3 << 0.0 << 0.0;
        QTest::newRow("1 ms per pixel") << 0.0 << 1e-3 << 0.25 << 250.0;
        QTest::newRow("scrolled") << 2.0 << 0.01 << 2.5 << 50.0;
        QTest::newRow("before the start") << 1.0 << 0.5 << 0.0 << -2.0;
    }
    void mapsTimeToXAndBack() {
        QFETCH(double, start);
        QFETCH(double, secondsPerPixel);
        QFETCH(double, t);
        QFETCH(double, x);
        const TimeAxis a{start, secondsPerPixel};
        QVERIFY(near(a.x(t), x));
        QVERIFY(near(a.time(x), t));
    }
    void zoomKeepsTheTimeUnderTheCursor_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("in at the left edge") << 0.0 << 2.0;
        QTest::newRow("in mid-way") << 400.0 << 1.25;
        QTest::newRow("out near the right") << 990.0 << 0.5;
    }
    void zoomKeepsTheTimeUnderTheCursor() {
        QFETCH(double, x);
        QFETCH(double, factor);
        TimeAxis a{0.3, 2e-4};
        const double before = a.time(x);
        a.zoomAround(x, factor);
        QVERIFY(near(a.time(x), before));
        QVERIFY(near(a.secondsPerPixel, 2e-4 / factor));
    }
    void panFitAndClamp() {
        TimeAxis a = TimeAxis::fit(0, 2.0, 1000);
        QVERIFY(near(a.secondsPerPixel, 2e-3));
        QVERIFY(near(a.time(1000), 2.0));
        a.pan(100);
        QVERIFY(near(a.start, 0.2));
        // Clamped: cannot scroll past the end, nor zoom out beyond the whole step.
        a.clamp(2.0, 1000);
        QVERIFY(near(a.start, 0.0)); // the whole step already fills the width
        TimeAxis b{1.9, 1e-3};
        b.clamp(2.0, 1000);
        QVERIFY(near(b.start, 1.0));
        TimeAxis c{0, 1.0};
        c.clamp(2.0, 1000);
        QVERIFY(near(c.secondsPerPixel, 2e-3));
    }
    void ticksFollowOneTwoFive_data() {
        QTest::addColumn<double>("secondsPerPixel");
        QTest::addColumn<double>("step");
        // At least 80 pixels apart: the smallest of 1, 2, 5 x 10^k seconds covering 80 pixels.
        QTest::newRow("1 ms/px -> 0.1 s") << 1e-3 << 0.1;
        QTest::newRow("2 ms/px -> 0.2 s") << 2e-3 << 0.2;
        QTest::newRow("3 ms/px -> 0.5 s") << 3e-3 << 0.5;
        QTest::newRow("7 us/px -> 1 ms") << 7e-6 << 1e-3;
    }
    void ticksFollowOneTwoFive() {
        QFETCH(double, secondsPerPixel);
        QFETCH(double, step);
        const TimeAxis a{0.05, secondsPerPixel};
        double got = 0;
        const auto ticks = a.ticks(1000, 80, got);
        QVERIFY(near(got, step));
        QVERIFY(!ticks.empty());
        for (double t : ticks) {
            QVERIFY(a.x(t) >= -1e-6 && a.x(t) <= 1000 + 1e-6);
            QVERIFY(near(std::round(t / step) * step, t));
        }
    }
    void bucketsALane_data() {
        QTest::addColumn<std::vector<Span>>("spans");
        QTest::addColumn<double>("start");
        QTest::addColumn<std::vector<Bucket>>("expected");
        // One second per pixel throughout, 100 pixels wide.
        QTest::newRow("wide spans pass through")
            << std::vector<Span>{{0, 10, 1}, {10, 20, 2}} << 0.0
            << std::vector<Bucket>{{0, 10, 1, 0, 1}, {10, 20, 2, 1, 1}};
        std::vector<Span> tenths;
        for (int i = 0; i < 10; ++i)
            tenths.push_back(Span{i * 0.1, (i + 1) * 0.1, 3});
        QTest::newRow("narrow spans merge per pixel") << tenths << 0.0 << std::vector<Bucket>{{0, 1, 3, 0, 10}};
        QTest::newRow("the longest gives the colour")
            << std::vector<Span>{{0, 0.1, 1}, {0.1, 0.5, 2}, {0.5, 0.6, 1}} << 0.0
            << std::vector<Bucket>{{0, 1, 2, 0, 3}};
        QTest::newRow("a wide span after a narrow one keeps its place")
            << std::vector<Span>{{0, 0.2, 1}, {0.5, 3.0, 2}} << 0.0
            << std::vector<Bucket>{{0, 1, 1, 0, 1}, {0.5, 3.0, 2, 1, 1}};
        QTest::newRow("outside the window is skipped, edges are cut")
            << std::vector<Span>{{0, 1, 1}, {4, 8, 2}, {104, 120, 3}, {200, 300, 1}} << 5.0
            << std::vector<Bucket>{{0, 3, 2, 1, 1}, {99, 100, 3, 2, 1}};
    }
    void bucketsALane() {
        QFETCH(std::vector<Span>, spans);
        QFETCH(double, start);
        QFETCH(std::vector<Bucket>, expected);
        const auto got = bucketLane(spans, TimeAxis{start, 1.0}, 100);
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QVERIFY2(near(got[i].x0, expected[i].x0), qPrintable(QString::number(got[i].x0)));
            QVERIFY2(near(got[i].x1, expected[i].x1), qPrintable(QString::number(got[i].x1)));
            QCOMPARE(got[i].kind, expected[i].kind);
            QCOMPARE(got[i].first, expected[i].first);
            QCOMPARE(got[i].count, expected[i].count);
        }
    }
    void aMillionSpansCostAFewBucketsPerPixel() {
        std::vector<Span> spans;
        for (int i = 0; i < 1000000; ++i)
            spans.push_back(Span{i * 1e-6, i * 1e-6 + 0.8e-6, i % 3});
        const auto buckets = bucketLane(spans, TimeAxis::fit(0, 1.0, 1000), 1000);
        QVERIFY(buckets.size() <= 1001);
        std::size_t covered = 0;
        for (const Bucket& b : buckets)
            covered += b.count;
        QCOMPARE(covered, spans.size());
    }
    void findsTheSpanUnderATime() {
        const std::vector<Span> spans{{0, 1, 0}, {2, 3, 1}};
        QCOMPARE(spanAt(spans, 0.5), 0L);
        QCOMPARE(spanAt(spans, 1.5), -1L);
        QCOMPARE(spanAt(spans, 2.0), 1L);
        QCOMPARE(spanAt(spans, 3.5), -1L);
    }
    void rowsGroupDevicesByNode() {
        // Two lanes a device (compute and one communication stream), as a plan without pipelining
        // and with tensor-parallel collectives only shows.
        const std::vector<Lane> two{Lane::Compute, Lane::Tensor};
        const TimelineRows open(16, 8, {}, 10, 20, two);
        QCOMPARE(open.rows().size(), std::size_t(2 + 32));
        QCOMPARE(open.height(), 2 * 20.0 + 32 * 10.0);
        QCOMPARE(open.rows()[0].device, -1);
        QCOMPARE(open.rows()[1].device, 0);
        QCOMPARE(open.rows()[2].lane, Lane::Tensor);
        QCOMPARE(open.rowOf(9, Lane::Tensor), 1 + 16 + 1 + 3); // header, node 0's lanes, header, then 8c 8m 9c 9m
        QCOMPARE(open.rowAt(25.0), 1);
        QCOMPARE(open.rowAt(-1.0), -1);
        QCOMPARE(open.rowAt(open.height()), -1);
        const TimelineRows folded(16, 8, {false, true}, 10, 20, two);
        QCOMPARE(folded.rows().size(), std::size_t(2 + 16));
        QCOMPARE(folded.rowOf(9, Lane::Compute), -1);
        // Pipelined: each device's schedule lane first.
        const TimelineRows piped(16, 8, {}, 10, 20, {Lane::Schedule, Lane::Compute, Lane::Tensor});
        QCOMPARE(piped.rows().size(), std::size_t(2 + 48));
        QCOMPARE(piped.rows()[1].lane, Lane::Schedule);
        QCOMPARE(piped.rows()[2].lane, Lane::Compute);
        QCOMPARE(piped.rowOf(9, Lane::Tensor), 1 + 24 + 1 + 5); // header, node 0's lanes, header, 8s 8c 8m 9s 9c, then 9m
    }
    void scheduleUnitsFollowTheStagesOrder_data() {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("virtualStages");
        QTest::newRow("1f1b") << int(shardscope::Schedule::OneFOneB) << 1;
        QTest::newRow("gpipe") << int(shardscope::Schedule::GPipe) << 1;
        QTest::newRow("interleaved x 2") << int(shardscope::Schedule::Interleaved) << 2;
    }
    void scheduleUnitsFollowTheStagesOrder() {
        // A simulated pipeline (8-layer GPT on pipe=2,data=2, 4 micro-batches): every stage's units are
        // the passes its schedule runs (schedule_order.h), in that order, one after another.
        using namespace shardscope;
        QFETCH(int, schedule);
        QFETCH(int, virtualStages);
        ModelParams p;
        p.layers = 8;
        p.batch = 16;
        p.seq = 256;
        p.vocab = 64;
        const int m = 4;
        const Graph g = buildModel("gpt", p, m, "gpt");
        Cluster c = clusterPreset("dgx-a100", 1);
        c.levels.front().size = 4;
        const Mesh mesh = Mesh::parse("pipe=2,data=2");
        StepSettings s;
        s.microbatches = m;
        s.schedule = static_cast<Schedule>(schedule);
        s.virtualStages = virtualStages;
        const Plan plan = baselinePlan(g, mesh, "dp", s);
        const auto sim = simulate(CostModel(g, c, mesh, plan.settings), plan, SimOptions{false});
        const auto data = buildTimelineData(sim, 4, 2, plan.pipeline.chunkOf, virtualStages);
        QVERIFY(data->pipelined());
        for (int stage = 0; stage < 2; ++stage) {
            const auto& units = data->lanes(stage * 2).units;
            const std::vector<PipelineUnit> order = stageOrder(s, 2, stage);
            QCOMPARE(units.size(), order.size());
            QCOMPARE(units.size(), std::size_t(2 * m * virtualStages));
            for (std::size_t i = 0; i < units.size(); ++i) {
                QCOMPARE(units[i].forward, order[i].forward);
                QCOMPARE(units[i].microbatch, order[i].microbatch);
                QCOMPARE(units[i].chunk, order[i].chunk);
                QVERIFY(units[i].span.end > units[i].span.start);
                if (i > 0)
                    QVERIFY(units[i].span.start >= units[i - 1].span.end - 1e-12);
            }
            QCOMPARE(data->laneSpans(stage * 2, Lane::Schedule).size(), units.size());
        }
        const ScheduleUnit b3{3, false, 2, {}};
        QCOMPARE(unitLabel(b3, false), QStringLiteral("B3"));
        QCOMPARE(unitLabel(b3, true), QStringLiteral("B3.2"));
    }
    void clusterLayoutNestsDevicesInNodes() {
        const ClusterGeometry g = layoutCluster(32, 8);
        QCOMPARE(g.nodes.size(), std::size_t(4));
        QCOMPARE(g.devices.size(), std::size_t(32));
        for (std::size_t d = 0; d < g.devices.size(); ++d)
            QVERIFY(g.nodes[d / 8].contains(g.devices[d]));
        for (std::size_t a = 0; a < g.nodes.size(); ++a)
            for (std::size_t b = a + 1; b < g.nodes.size(); ++b)
                QVERIFY(!g.nodes[a].intersects(g.nodes[b]));
        QCOMPARE(g.endpoint(0, 5, 1), g.devices[5].center());
        QCOMPARE(g.endpoint(1, 2, 1), g.nodes[2].center());
    }
};

QTEST_GUILESS_MAIN(TestTimelineMath)
#include "tst_timeline_math.moc"
