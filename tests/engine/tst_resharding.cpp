// Resharding between shardings as collectives (DESIGN 2.3).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/sharding/resharding.h"

using namespace shardscope;

namespace {
TensorSharding sharding(std::vector<AxisSet> dims, AxisSet partial = 0) { return TensorSharding{std::move(dims), partial}; }
const Mesh kMesh = Mesh::parse("data=2,model=4");
constexpr AxisSet D = 1, M = 2;
constexpr double kFull = 800; // bytes of the unsharded tensor
} // namespace

class TestResharding : public QObject {
    Q_OBJECT
private slots:
    void partialToReplicatedIsAllReduce() {
        // Split on data over dim 0 (local 400 bytes), partial on model: an all-reduce of the 400 bytes.
        const auto steps = reshard(sharding({D, 0}, M), sharding({D, 0}), kFull, kMesh);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].kind, CollectiveKind::AllReduce);
        QCOMPARE(steps[0].axes, M);
        QCOMPARE(steps[0].bytes, 400.0);
    }
    void partialToSplitIsReduceScatter() {
        const auto steps = reshard(sharding({0, 0}, M), sharding({0, M}), kFull, kMesh);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].kind, CollectiveKind::ReduceScatter);
        QCOMPARE(steps[0].bytes, kFull);
    }
    void splitToReplicatedIsAllGather() {
        // Split on model (200 bytes each): the all-gather's buffer is the gathered 800 bytes.
        const auto steps = reshard(sharding({0, M}), sharding({0, 0}), kFull, kMesh);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].kind, CollectiveKind::AllGather);
        QCOMPARE(steps[0].bytes, kFull);
    }
    void dimensionChangeIsAllToAll() {
        const auto steps = reshard(sharding({M, 0}), sharding({0, M}), kFull, kMesh);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].kind, CollectiveKind::AllToAll);
        QCOMPARE(steps[0].bytes, kFull / 4);
    }
    void replicatedToSplitIsFree() {
        QVERIFY(reshard(sharding({0, 0}), sharding({D, M}), kFull, kMesh).empty());
        QVERIFY(reshard(sharding({D, 0}), sharding({D, 0}), kFull, kMesh).empty());
    }
    void partialStaysPartialForFree() {
        QVERIFY(reshard(sharding({0, 0}, D), sharding({0, 0}, D), kFull, kMesh).empty());
    }
    void mixedStepsRunInOrder() {
        // Partial on data and split on model over dim 1, wanted replicated: all-reduce over data of the
        // 200-byte shard, then all-gather over model back to 800 bytes.
        const auto steps = reshard(sharding({0, M}, D), sharding({0, 0}), kFull, kMesh);
        QCOMPARE(steps.size(), std::size_t(2));
        QCOMPARE(steps[0].kind, CollectiveKind::AllReduce);
        QCOMPARE(steps[0].bytes, 200.0);
        QCOMPARE(steps[1].kind, CollectiveKind::AllGather);
        QCOMPARE(steps[1].bytes, kFull);
    }
};

QTEST_GUILESS_MAIN(TestResharding)
#include "tst_resharding.moc"
