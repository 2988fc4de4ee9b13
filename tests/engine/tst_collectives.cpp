// Collective costs against hand-computed alpha-beta values (docs/DESIGN.md, Costs).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/collectives.h"

using namespace shardscope;

namespace {
// dgx-a100 figures, written out: NVLink 300 GB/s achieving 0.775 of it, 1.75 us per ring step inside
// a node; HDR 25 GB/s per GPU achieving 0.96, 2.32 us per step across nodes; 15.26 us per collective.
constexpr double kNv = 300e9 * 0.775, kNvLat = 1.75e-6, kIb = 25e9 * 0.96, kIbLat = 2.32e-6, kBase = 15.26e-6,
                 S = 1e9;

/// One full GB200 NVL72 rack.
Cluster rack72() { return clusterPreset("gb200-nvl72", 18); }

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
        // Inside one node the tree is a chain with the ring's latency and more bytes: the ring.
        near(comm.time(CollectiveKind::AllReduce, model, S), kBase + 2.0 * 7 / 8 * S / kNv + 2 * 7 * kNvLat);
        near(comm.time(CollectiveKind::AllGather, model, S), kBase + 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.time(CollectiveKind::ReduceScatter, model, S), kBase + 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.time(CollectiveKind::AllToAll, model, S), kBase + 7.0 / 8 * S / kNv + 7 * kNvLat);
        near(comm.time(CollectiveKind::SendRecv, model, S), kBase + S / kNv + kNvLat);
        near(comm.bytesSent(CollectiveKind::AllReduce, model, S), 2.0 * 7 / 8 * S);
    }
    void interNodeRing() {
        // The data axis (stride 8, size 2) joins the same local rank of two nodes: one NIC each.
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CommModel comm(c, Mesh::parse("data=2,model=8"));
        const AxisSet data = axisBit(AxisId(0));
        near(comm.time(CollectiveKind::AllReduce, data, S), kBase + 2.0 * 1 / 2 * S / kIb + 2 * 1 * kIbLat);
        near(comm.time(CollectiveKind::AllGather, data, S), kBase + 1.0 / 2 * S / kIb + kIbLat);
        QCOMPARE(comm.spans(data).front().perLevel, (std::vector<int>{1, 2}));
    }
    void ringOverTwoNodesUsesEveryNic() {
        // One axis over 16 devices on two nodes: the ring sends 2 x 15/16 S per device, 7/8 of it on
        // NVLink and 1/8 across nodes; the 8 NICs together carry the node's crossings.
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CommModel comm(c, Mesh::parse("data=16"));
        const AxisSet data = axisBit(AxisId(0));
        const double sent = 2.0 * 15 / 16 * S;
        const double nvlink = sent * 7 / 8 / kNv, ib = sent / 8 / kIb;
        QVERIFY(ib > nvlink); // 9.77 ms against 7.06 ms: the network bounds it, 192 GB/s of bus bandwidth
        near(comm.time(CollectiveKind::AllReduce, data, S), kBase + ib + 30 * kIbLat);
        const std::vector<double> perLevel = comm.bytesPerLevel(CollectiveKind::AllReduce, data, S);
        near(perLevel[0], sent * 7 / 8);
        near(perLevel[1], sent / 8);
        const double gathered = 15.0 / 16 * S;
        near(comm.time(CollectiveKind::AllGather, data, S), kBase + gathered / 8 / kIb + 15 * kIbLat);
        // All-to-all: 7 of the 15 peers in the node, 8 across.
        near(comm.time(CollectiveKind::AllToAll, data, S),
             kBase + std::max(gathered * 7 / 15 / kNv, gathered * 8 / 15 / kIb) + 15 * kIbLat);
        QCOMPARE(comm.spans(data).size(), std::size_t(1));
        QVERIFY(comm.spans(data).front().aligned);
    }
    void smallAllReducesTakeTheTree() {
        // 1 KB over 16 devices on two nodes: the tree's latency 2 (7 x 1.75 + 1 x 2.32) us beats the
        // ring's 30 x 2.32 us; at 1 GB the ring's 15/16 of the bytes win.
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CommModel comm(c, Mesh::parse("data=16"));
        const AxisSet data = axisBit(AxisId(0));
        const double small = 1e3;
        near(comm.time(CollectiveKind::AllReduce, data, small),
             kBase + 2 * small / 8 / kIb + 2 * (7 * kNvLat + 1 * kIbLat));
        QVERIFY(comm.time(CollectiveKind::AllReduce, data, S) < kBase + 2 * S / 8 / kIb);
    }
    void ringsOverManyNodesPayTheirLatency() {
        // 128 nodes, the data axis one GPU per node: an all-gather is a ring of 128 steps on the
        // network, an all-reduce of a small buffer a binary tree of depth log2(128) = 7.
        const Cluster c = clusterPreset("dgx-a100", 128);
        const CommModel comm(c, Mesh::parse("data=128,model=8"));
        const AxisSet data = axisBit(AxisId(0));
        const double mb = 1e6;
        near(comm.time(CollectiveKind::AllGather, data, mb), kBase + 127.0 / 128 * mb / kIb + 127 * kIbLat);
        near(comm.time(CollectiveKind::AllReduce, data, mb), kBase + 2 * mb / kIb + 2 * 7 * kIbLat);
    }
    void busBandwidthRisesWithMessageSize() {
        // nccl-tests' bus bandwidth 2 (n-1)/n S / t on one node rises with S toward the achieved
        // 232.5 GB/s and is half of it where the bandwidth term equals the latency, at
        // S = (base + 14 a) x 232.5 GB/s / (2 x 7/8).
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CommModel comm(c, Mesh::parse("data=8"));
        const AxisSet data = axisBit(AxisId(0));
        auto busbw = [&](double bytes) { return 2.0 * 7 / 8 * bytes / comm.time(CollectiveKind::AllReduce, data, bytes); };
        double previous = 0;
        for (double bytes = 1e3; bytes <= 1e10; bytes *= 10) {
            QVERIFY(busbw(bytes) > previous);
            QVERIFY(busbw(bytes) < kNv);
            previous = busbw(bytes);
        }
        QVERIFY(busbw(1e10) > 0.99 * kNv);
        near(busbw((kBase + 14 * kNvLat) * kNv / (2.0 * 7 / 8)), kNv / 2);
    }
    void smallTensorsCoalescedIntoABucketPayItsLatencyOnce() {
        // 25 gradients of 1 MB in a 25 MB bucket over 8 devices of a node: each costs a 25th of the
        // bucket's ring all-reduce, so together exactly one all-reduce of 25 MB, where 25 separate
        // all-reduces would pay the base latency and 14 ring steps 25 times. A tensor larger than
        // the bucket runs alone.
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CommModel comm(c, Mesh::parse("data=8"));
        const AxisSet data = axisBit(AxisId(0));
        const double mb = 1e6, bucket = 25e6;
        const double whole = kBase + 2.0 * 7 / 8 * bucket / kNv + 2 * 7 * kNvLat;
        near(25 * comm.coalescedTime(CollectiveKind::AllReduce, data, mb, bucket), whole);
        near(25 * comm.time(CollectiveKind::AllReduce, data, mb) - whole, 24 * (kBase + 2 * 7 * kNvLat));
        near(comm.coalescedTime(CollectiveKind::AllReduce, data, 2 * bucket, bucket),
             comm.time(CollectiveKind::AllReduce, data, 2 * bucket));
        near(comm.coalescedTime(CollectiveKind::AllReduce, data, mb, 0), comm.time(CollectiveKind::AllReduce, data, mb));
    }
    void singleDeviceGroupIsFree() {
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CommModel comm(c, Mesh::parse("data=8,model=1"));
        QCOMPARE(comm.time(CollectiveKind::AllReduce, axisBit(AxisId(1)), S), 0.0);
        QCOMPARE(comm.time(CollectiveKind::AllReduce, 0, S), 0.0);
    }
    void nvl72DomainIsOneSetOfNvlinkPorts() {
        // gb200-nvl72 on 18 trays: one rack, levels tray (4) and nvlink (18) at NVLink 5, 900 GB/s x 0.901,
        // 1.75 us per step. A 72-GPU model axis sends its whole all-reduce through each GPU's NVLink ports:
        // the tray's share (3/4 of the ring's hops) and the rack's (1/4) add up on one link.
        const double nv5 = 900e9 * 0.901;
        const Cluster rack = rack72();
        QCOMPARE(rack.deviceCount(), 72);
        QCOMPARE(rack.scaleUpSize(), 72);
        const CommModel comm(rack, Mesh::parse("model=72"));
        const AxisSet model = axisBit(AxisId(0));
        const double ring = 2.0 * 71 * kNvLat + 2.0 * 71 / 72 * S / nv5;
        const double tree = 2.0 * (3 + 5) * kNvLat + 2.0 * S / nv5; // a chain of 4, a tree over 18: ceil(log2 18) = 5
        near(comm.time(CollectiveKind::AllReduce, model, S), kBase + std::min(ring, tree));
        const CommShape shape = comm.shape(CollectiveKind::AllReduce, model, S, 0);
        QCOMPARE(shape.levelSeconds[0], 0.0);
        QCOMPARE(comm.slowestLevel(model), std::size_t(1));
    }
    void nvl72AcrossRacksCrossesTheScaleOutLevel() {
        // 36 trays: two racks of 18 joined by 400 Gb/s per GPU (50 GB/s x 0.94, 2.32 us per step). A
        // 144-GPU model axis crosses the scale-out level: 1/72 of its ring's bytes per GPU leave the rack
        // through its own NIC, the other 71/72 stay on NVLink.
        const double nv5 = 900e9 * 0.901, ib = 50e9 * 0.94;
        const Cluster racks = clusterPreset("gb200-nvl72", 36);
        QCOMPARE(racks.levels[1].size, 18);
        QCOMPARE(racks.levels[2].size, 2);
        const CommModel comm(racks, Mesh::parse("model=144"));
        const AxisSet model = axisBit(AxisId(0));
        QCOMPARE(comm.slowestLevel(model), std::size_t(2));
        const double sent = 2.0 * 143 / 144 * S;
        const double ring = 2.0 * 143 * kIbLat + std::max(71.0 / 72 * sent / nv5, sent / 72 / ib);
        const double tree = 2.0 * (3 * kNvLat + 5 * kNvLat + 1 * kIbLat) + std::max(71.0 / 72 * 2 * S / nv5, 2 * S / 72 / ib);
        near(comm.time(CollectiveKind::AllReduce, model, S), kBase + std::min(ring, tree));
        // The same 144 GPUs as two 72-GPU model groups beside a data axis: the model axis stays on
        // NVLink, and the data axis's all-reduce goes wholly over the scale-out level.
        const CommModel split(racks, Mesh::parse("data=2,model=72"));
        near(split.time(CollectiveKind::AllReduce, axisBit(AxisId(1)), S),
             CommModel(rack72(), Mesh::parse("model=72")).time(CollectiveKind::AllReduce, axisBit(AxisId(0)), S));
        near(split.time(CollectiveKind::AllReduce, axisBit(AxisId(0)), S), kBase + 2 * kIbLat + S / ib);
    }
};

QTEST_GUILESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
