// The analytic composition of the streams (stream_composition.h) on hand-built passes, each figure
// worked out in the test: gathers queue ahead of the compute as the workspace holds them, a link
// level's bandwidth is shared by the gather and the reduce stream while both move bytes but not
// during a collective's latency, compute slows beside busy links, and overlap off sums everything.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/evaluation/stream_composition.h"

using namespace shardscope;

namespace {

/// An op of `work` compute seconds whose compute waits for a gather of `gather`.
PassOp gathering(double work, LinkWork gather) {
    PassOp op;
    op.work = work;
    op.gather = gather;
    op.gatherBytes = 1;
    op.working = 1;
    return op;
}

/// An op of `work` compute seconds that issues a reduction of `reduce` after it.
PassOp reducing(double work, LinkWork reduce) {
    PassOp op;
    op.work = work;
    op.reduce = reduce;
    op.working = 1;
    return op;
}

/// Passes of one micro-batch with room in the workspace for every gather at once.
StepPasses passes(std::vector<PassOp> forward, std::vector<PassOp> backward) {
    StepPasses p;
    p.forward = std::move(forward);
    p.backward = std::move(backward);
    p.firstGather.assign(p.forward.size(), LinkWork{});
    p.lastReduce.assign(p.backward.size(), LinkWork{});
    p.lastReduceBytes.assign(p.backward.size(), 0.0);
    p.workspace = 100;
    return p;
}

} // namespace

class TestStreamComposition : public QObject {
    Q_OBJECT
private slots:
    void gathersQueueAheadOfTheCompute() {
        // The header's example: ops of 2 s compute with gathers of 3 s and 1 s, both queued at the
        // start: they end at 3 s and 4 s; op 0 computes 3-5 s, op 1 5-7 s.
        const StepPasses p = passes({gathering(2, {3, 0}), gathering(2, {1, 0})}, {});
        QCOMPARE(composeStep(p, 1, 1, true, 0).stepTime, 7.0);
        // Overlap off: every collective blocks, 3 + 2 + 1 + 2.
        QCOMPARE(composeStep(p, 1, 1, false, 0).stepTime, 8.0);
    }
    void latencyIsNotShared() {
        // Backward: op A computes 0-1 s and reduces 4 s (2 s of latency) from 1 s; op B's gather of
        // 4 s (2 s latency) was queued at 0 s. Gather: latency 0-2 s, bytes alone 2-3 s (1 of its 2 s
        // moved), then sharing with the reduction's bytes (its latency ran 1-3 s): the last second at
        // half rate, 3-5 s. Reduction: 1 s of bytes moved at half rate 3-5 s, the last alone 5-6 s.
        // B computes 5-6 s; the step ends when the reduction does, 6 s.
        const StepPasses p = passes({}, {reducing(1, {4, 2}), gathering(1, {4, 2})});
        // (Were the latency shared like bytes: the gather alone 0-1 s, shared 1-7 s, the reduction's
        // last second alone 7-8 s: 8 s.)
        QCOMPARE(composeStep(p, 1, 1, true, 0).stepTime, 6.0);
    }
    void computeSlowsBesideBusyLinks() {
        // One op of 2 s compute beside a reduction of 4 s issued by the op before it (1 s compute):
        // slowdown 0.5, so compute beside the link runs 1.5 times slower: op 1 runs 1-4 s (2 s of
        // work at 2/3 rate), the reduction (1-5 s) ends the step at 5 s.
        const StepPasses p = passes({}, {reducing(1, {4, 0}), reducing(2, {})});
        const ComposedStep s = composeStep(p, 1, 1, true, 0.5);
        QCOMPARE(s.stepTime, 5.0);
        QCOMPARE(s.computeTime, 4.0); // 1 + 3
    }
    void twoLevelsRunAtOnce() {
        // The same reduction and gather as latencyIsNotShared() on different link levels never share:
        // the gather ends at 4 s (B computes 4-5 s), the reduction at 1 + 4 = 5 s.
        StepPasses p = passes({}, {reducing(1, {4, 2}), gathering(1, {4, 2})});
        p.backward[1].level = 1;
        QCOMPARE(composeStep(p, 1, 2, true, 0).stepTime, 5.0);
    }
};

QTEST_GUILESS_MAIN(TestStreamComposition)
#include "tst_stream_composition.moc"
