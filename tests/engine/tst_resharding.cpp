// Resharding between shardings as collectives (docs/DESIGN.md, Sharding and resharding).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/sharding/resharding.h"

#include <random>

using namespace shardscope;

namespace {
TensorSharding sharding(std::vector<AxisSet> dims, AxisSet partial = 0) { return TensorSharding{std::move(dims), partial}; }
const Mesh kMesh = Mesh::parse("data=2,model=4");
constexpr AxisSet D = 1, M = 2;
constexpr double kFull = 800; // bytes of the unsharded tensor

/// The header's rules applied axis by axis, as a reference for the bit-set implementation.
struct AxisRule {
    AxisSet allReduce = 0, reduceScatter = 0, allToAll = 0, allGather = 0, slice = 0;
};
AxisRule perAxis(const TensorSharding& from, const TensorSharding& to, const Mesh& mesh) {
    auto dimOf = [](const TensorSharding& t, AxisSet bit) {
        for (std::size_t d = 0; d < t.dims.size(); ++d)
            if (t.dims[d] & bit)
                return int(d);
        return -1;
    };
    AxisRule r;
    for (std::size_t a = 0; a < mesh.rank(); ++a) {
        const AxisSet bit = AxisSet(1) << a;
        const int src = dimOf(from, bit), dst = dimOf(to, bit);
        if (from.partial & bit) {
            if (!(to.partial & bit))
                (dst >= 0 ? r.reduceScatter : r.allReduce) |= bit;
        } else if (src >= 0) {
            if (dst != src)
                (dst >= 0 ? r.allToAll : r.allGather) |= bit;
        } else if (dst >= 0) {
            r.slice |= bit;
        }
    }
    return r;
}

/// A random sharding of a rank-3 tensor on a 3-axis mesh: each axis splits one dimension, stays
/// replicated, or (when `partial`) is partial.
TensorSharding randomSharding(std::mt19937& rng, bool partial) {
    TensorSharding t{{0, 0, 0}, 0};
    for (AxisSet a = 0; a < 3; ++a) {
        const int pick = std::uniform_int_distribution<int>(0, partial ? 4 : 3)(rng);
        if (pick < 3)
            t.dims[std::size_t(pick)] |= AxisSet(1) << a;
        else if (pick == 4)
            t.partial |= AxisSet(1) << a;
    }
    return t;
}
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
    void stepsFollowTheRulesAxisByAxis() {
        // 2000 random pairs on data=2,seq=3,model=4: the steps are the per-axis rules merged by kind,
        // in the order reductions, all-to-all, all-gather, with sizes tracked from the producer's
        // shard: /RS group after a reduce-scatter, /slice group after local slicing, *AG group after
        // the all-gather.
        const Mesh mesh = Mesh::parse("data=2,seq=3,model=4");
        std::mt19937 rng(11);
        for (int i = 0; i < 2000; ++i) {
            const TensorSharding from = randomSharding(rng, true), to = randomSharding(rng, i % 2 == 0);
            const AxisRule r = perAxis(from, to, mesh);
            std::vector<ReshardStep> want;
            double local = kFull / mesh.groupSize(from.splitAxes());
            if (r.allReduce)
                want.push_back({CollectiveKind::AllReduce, r.allReduce, local});
            if (r.reduceScatter) {
                want.push_back({CollectiveKind::ReduceScatter, r.reduceScatter, local});
                local /= mesh.groupSize(r.reduceScatter);
            }
            local /= mesh.groupSize(r.slice);
            if (r.allToAll)
                want.push_back({CollectiveKind::AllToAll, r.allToAll, local});
            if (r.allGather)
                want.push_back({CollectiveKind::AllGather, r.allGather, local * mesh.groupSize(r.allGather)});
            const ReshardSteps got = reshard(from, to, kFull, mesh);
            QCOMPARE(got.size(), want.size());
            for (std::size_t k = 0; k < want.size(); ++k) {
                QCOMPARE(got[k].kind, want[k].kind);
                QCOMPARE(got[k].axes, want[k].axes);
                QCOMPARE(got[k].bytes, want[k].bytes);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestResharding)
#include "tst_resharding.moc"
