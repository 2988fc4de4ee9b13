// Collective costs against hand-computed alpha-beta values (DESIGN 2.5).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/collectives.h"

using namespace shardscope;

namespace {
// dgx-a100 figures: NVLink 300 GB/s, 2 us per hop inside a node; 25 GB/s, 5 us across nodes.
constexpr double kNv = 300e9, kNvLat = 2e-6, kIb = 25e9, kIbLat = 5e-6, S = 1e9;

void near(double actual, double expected) {
    QVERIFY2(std::abs(actual - expected) <= 1e-12 + 1e-9 * expected,
             qPrintable(QStringLiteral("%1 vs %2").arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12)));
}
} // namespace

class TestCollectives : public QObject {
    Q_OBJECT
private slots:
    void intraNodeRing() {
        // Mesh data=2,model=8 on two nodes: the model axis (stride 1, size 8) stays inside a node.
        const Cluster c = clusterPreset("dgx-a100", 2);
        const Mesh m = Mesh::parse("data=2,model=8");
        const CommModel comm(c, m);
        const AxisSet model = axisBit(AxisId(1));
        near(comm.time(CollectiveKind::AllReduce, model, S), 2.0 * 7 / 8 * S / kNv + 2 * 7 * kNvLat);
        near(comm.time(CollectiveKind::AllGather, model, S), 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.time(CollectiveKind::ReduceScatter, model, S), 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.time(CollectiveKind::AllToAll, model, S), 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.bytesSent(CollectiveKind::AllReduce, model, S), 2.0 * 7 / 8 * S);
    }
    void interNodeRing() {
        // The data axis (stride 8, size 2) joins the same local rank of two nodes: a flat ring on IB.
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CommModel comm(c, Mesh::parse("data=2,model=8"));
        const AxisSet data = axisBit(AxisId(0));
        near(comm.time(CollectiveKind::AllReduce, data, S), 2.0 * 1 / 2 * S / kIb + 2 * 1 * kIbLat);
        near(comm.time(CollectiveKind::AllGather, data, S), 1.0 / 2 * S / kIb + kIbLat);
        QCOMPARE(comm.spans(data).front().perLevel, (std::vector<int>{1, 2}));
    }
    void hierarchicalGroup() {
        // One axis over 16 devices on two nodes: reduce-scatter inside (8), all-reduce across (2) on
        // S/8, all-gather inside (8).
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CommModel comm(c, Mesh::parse("data=16"));
        const AxisSet data = axisBit(AxisId(0));
        const double inside = 7.0 / 8 * S / kNv + 7 * kNvLat;
        near(comm.time(CollectiveKind::AllReduce, data, S), 2 * inside + (2.0 * 1 / 2 * (S / 8) / kIb + 2 * kIbLat));
        // All-gather: inside on the full buffer, across on the node's share.
        near(comm.time(CollectiveKind::AllGather, data, S), inside + (1.0 / 2 * (S / 8) / kIb + kIbLat));
        QCOMPARE(comm.spans(data).size(), std::size_t(1));
        QVERIFY(comm.spans(data).front().aligned);
    }
    void singleDeviceGroupIsFree() {
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CommModel comm(c, Mesh::parse("data=8,model=1"));
        QCOMPARE(comm.time(CollectiveKind::AllReduce, axisBit(AxisId(1)), S), 0.0);
        QCOMPARE(comm.time(CollectiveKind::AllReduce, 0, S), 0.0);
    }
    void flatFormulas() {
        QCOMPARE(allReduceTime(4, 400, 100, 1), 2.0 * 3 / 4 * 4 + 2 * 3 * 1);
        QCOMPARE(allGatherTime(4, 400, 100, 1), 3.0 / 4 * 4 + 3);
        QCOMPARE(allToAllTime(1, 400, 100, 1), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
