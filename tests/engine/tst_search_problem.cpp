// The search's tables against the cost model they come from: every pair table entry is the sum of
// its edges' costs (CostModel::edgeCost, the breakdown the evaluator prints), whether the tables were
// built for this recomputation, weighed from another's pass-split parts, or folded over repeats.

#include "shared_copy.h"
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/io/model_file.h"
#include "engine/search/search.h"
#include "engine/search/search_problem.h"

#include <cmath>
#include <limits>
#include <map>

using namespace shardscope;

namespace {

/// A 4-layer GPT small enough that every pair table can be checked entry by entry.
Graph smallGpt() {
    ModelParams p;
    p.apply({"layers=4", "hidden=64", "heads=4", "seq=32", "vocab=128", "batch=8"});
    return buildModel("gpt", p, 2, "gpt");
}

StepSettings settings(Recompute r, AttentionKernel a = AttentionKernel::Fused) {
    StepSettings s;
    s.microbatches = 2;
    s.recompute = r;
    s.attention = a;
    return s;
}

/// sum over the edges between ops a and b of edgeCost(...).time(), for candidates ka of a and kb of b.
double edgeSum(const CostModel& model, const SearchProblem& p, int a, int b, int ka, int kb) {
    double total = 0;
    for (const Edge& e : model.edges()) {
        const int u = e.from.value, w = e.to.value;
        if (std::min(u, w) != a || std::max(u, w) != b)
            continue;
        const OpStrategy& su = p.candidates(u)[std::size_t(u == a ? ka : kb)];
        const OpStrategy& sw = p.candidates(w)[std::size_t(w == a ? ka : kb)];
        total += model.edgeCost(e, su, sw).time();
    }
    return total;
}

/// Every pair table of `p` against edgeSum(), to a relative 1e-12.
void compareWithEdgeCosts(const CostModel& model, const SearchProblem& p) {
    QVERIFY(p.hasEdges());
    QVERIFY(!p.pairs().empty());
    for (const PairTable& t : p.pairs()) {
        const int kb = p.choices(t.b);
        for (int x = 0; x < p.choices(t.a); ++x)
            for (int y = 0; y < kb; ++y) {
                const double want = edgeSum(model, p, t.a, t.b, x, y);
                const double got = t.table()[std::size_t(x) * std::size_t(kb) + std::size_t(y)];
                QVERIFY2(std::abs(got - want) <= 1e-12 * std::max(1e-9, std::abs(want)),
                         qPrintable(QStringLiteral("pair %1-%2 [%3,%4]: %5 vs %6")
                                        .arg(t.a).arg(t.b).arg(x).arg(y).arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
            }
    }
}

/// Calls `visit(choice)` for every assignment of `p`'s candidates.
template <typename Visit> void everyChoice(const SearchProblem& p, Visit visit) {
    std::vector<int> choice(std::size_t(p.size()), 0);
    while (true) {
        visit(choice);
        int v = 0;
        while (v < p.size() && ++choice[std::size_t(v)] == p.choices(v))
            choice[std::size_t(v++)] = 0;
        if (v == p.size())
            return;
    }
}

/// min over every assignment of p.objective(., lambda).
double bruteMinimum(const SearchProblem& p, double lambda) {
    double best = std::numeric_limits<double>::infinity();
    everyChoice(p, [&](const std::vector<int>& x) { best = std::min(best, p.objective(x, lambda)); });
    return best;
}

/// The least step time over the assignments of `p` that `fits` accepts (infinity if none), by brute force.
template <typename Fits> double fastestWhere(const SearchProblem& p, Fits fits) {
    double best = std::numeric_limits<double>::infinity();
    everyChoice(p, [&](const std::vector<int>& x) {
        if (fits(x))
            best = std::min(best, p.stepTime(x));
    });
    return best;
}

/// `value` of every assignment of `p`, ascending, by brute force.
template <typename Value> std::vector<double> sortedOverEveryChoice(const SearchProblem& p, Value value) {
    std::vector<double> out;
    everyChoice(p, [&](const std::vector<int>& x) { out.push_back(value(x)); });
    std::sort(out.begin(), out.end());
    return out;
}

/// A one-layer MLP on data=2,model=2 of one 4-GPU node, under ZeRO stage `zero`.
struct SmallMlp {
    Graph graph;
    Cluster cluster = clusterPreset("dgx-a100", 1);
    Mesh mesh = Mesh::parse("data=2,model=2");
    SmallMlp() {
        ModelParams p;
        p.apply({"layers=1", "hidden=64", "ffn=128", "batch=8"});
        graph = buildModel("mlp", p, 2, "mlp");
        cluster.levels.front().size = 4;
    }
    CostModel model(int zero) const {
        StepSettings s = settings(Recompute::None);
        s.overlap = false; // ZeRO 3's gathers all exposed, so its bound is an increase (below)
        s.zeroStage = zero;
        s.zeroAxes = zero > 0 ? 1 : 0;
        return CostModel(graph, cluster, mesh, s);
    }
};

} // namespace

class TestSearchProblem : public QObject {
    Q_OBJECT
private slots:
    void pairTablesAreTheEdgeCosts_data() {
        QTest::addColumn<int>("recompute");
        QTest::newRow("none") << int(Recompute::None);
        QTest::newRow("selective") << int(Recompute::Selective);
        QTest::newRow("full") << int(Recompute::Full);
    }
    void pairTablesAreTheEdgeCosts() {
        QFETCH(int, recompute);
        const Graph g = smallGpt();
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel model(g, c, Mesh::parse("data=4,model=2"), settings(Recompute(recompute)));
        compareWithEdgeCosts(model, SearchProblem(sharedCopy(model), {}));
    }
    void partsOfAnotherRecomputationGiveThisOnesTables() {
        // Built for no recomputation, weighed for full (every forward resharding runs twice) and
        // selective (only those into the attention core): the tables of a fresh build for each.
        const Graph g = smallGpt();
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const CostModel none(g, c, mesh, settings(Recompute::None));
        const SearchProblem source(sharedCopy(none), {});
        QVERIFY(source.edgeParts());
        for (Recompute r : {Recompute::Selective, Recompute::Full}) {
            const CostModel model(g, c, mesh, settings(r));
            SearchProblem weighed(sharedCopy(model), {}, nullptr, {}, SearchProblem::Edges::Deferred);
            QVERIFY(!weighed.hasEdges());
            weighed.useEdgeParts(source.edgeParts());
            compareWithEdgeCosts(model, weighed);
            SearchProblem shared(sharedCopy(model), {}, nullptr, {}, SearchProblem::Edges::Deferred);
            shared.shareEdges(source);
            compareWithEdgeCosts(model, shared);
        }
    }
    void foldedTablesAreTheEdgeCostsToo() {
        // Blocks 3..L take their tables from block 2 (transposed where the op order flips): every
        // entry still equals its own edges' costs, under a recomputation that weighs pairs apart.
        const Graph g = smallGpt();
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        QVERIFY(blocks->count() >= 3);
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel model(g, c, Mesh::parse("data=2,model=4"), settings(Recompute::Selective));
        compareWithEdgeCosts(model, SearchProblem(sharedCopy(model), {}, &*blocks));
    }
    void recomputationOnlyRepeatsTheForwardPart() {
        // By hand on one edge: full recomputation runs each forward resharding f into a recomputed op
        // (one inside the repeated layers) once more per micro-batch; the backward is unchanged. An edge
        // whose consumer reads the input in its backward keeps the tensor at the producer's sharding:
        // without recomputation its all-gathers g run again in the backward (f + g), recomputed the
        // whole resharding runs again (2f). So full minus none is f - g there, f elsewhere.
        const Graph g = smallGpt();
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        // Unfused, so that nothing is recomputed without recomputation (the fused attention kernel
        // recomputes its scores).
        const CostModel none(g, c, mesh, settings(Recompute::None, AttentionKernel::Unfused));
        const CostModel full(g, c, mesh, settings(Recompute::Full, AttentionKernel::Unfused));
        const OpStrategy replicated = OpStrategy::replicated(mesh.rank());
        int checked = 0;
        int regathered = 0;
        for (const Edge& e : none.edges()) {
            const auto strategies = enumerateStrategies(g.op(e.from), mesh);
            for (const OpStrategy& from : strategies) {
                const auto pe = none.producerEnd(e, from);
                const auto ce = none.consumerEnd(e, replicated);
                const CostModel::EdgeTimes t = none.edgeTimes(e, pe, ce);
                QCOMPARE(none.edgeTime(e, pe, ce), t.forward + t.backward);
                const double bytes = g.tensor(e.tensor).bytes();
                const ReshardTime r = none.reshardTime(pe.value, ce.value, bytes);
                const double f = r.seconds;
                const double gathers = none.keepsProducerSharding(e) ? r.gathers : 0;
                const double extra = full.recomputed(e.to) ? f - gathers : 0;
                QVERIFY(std::abs(full.edgeTime(e, pe, ce) - none.edgeTime(e, pe, ce) - extra) <= 1e-12 + 1e-9 * f);
                checked += f > 0 && full.recomputed(e.to) ? 1 : 0;
                regathered += gathers > 0 ? 1 : 0;
            }
        }
        QVERIFY(checked > 0);
        QVERIFY(regathered > 0);
    }
    void weighedOptimaBoundEveryPlanThatFits() {
        // Weak duality, by brute force over every assignment: for a capacity C and any weight lambda,
        // every choice whose additive memory fits C takes at least min_x (T + lambda M)(x) - lambda C.
        const SmallMlp mlp;
        const CostModel model = mlp.model(0);
        const SearchProblem p(sharedCopy(model), {});
        const std::vector<double> memories =
            sortedOverEveryChoice(p, [&](const std::vector<int>& x) { return p.memoryOf(x); });
        QVERIFY(memories.size() > 100);
        const double capacity = memories[memories.size() / 4];
        const double fastestThatFits =
            fastestWhere(p, [&](const std::vector<int>& x) { return p.memoryOf(x) <= capacity; });
        const double scale = bruteMinimum(p, 0) / capacity;
        for (double lambda : {0.0, scale / 16, scale, 16 * scale, 256 * scale}) {
            const double dual = bruteMinimum(p, lambda) - lambda * capacity;
            QVERIFY2(dual <= fastestThatFits * (1 + 1e-12),
                     qPrintable(QStringLiteral("lambda %1: dual %2 > %3").arg(lambda).arg(dual).arg(fastestThatFits)));
        }
    }
    void fittingLowerBoundHoldsForEveryPlanThatFits() {
        // By brute force over every assignment, at several capacities between the least and the
        // largest peak: no choice that fits is faster than the bound, which is at least
        // minStepTime(); below the least peak nothing fits (infinity). (This MLP's fastest candidates
        // are also its smallest; the next test has memory binding.)
        const SmallMlp mlp;
        const CostModel model = mlp.model(0);
        const SearchProblem p(sharedCopy(model), {});
        const std::vector<double> peaks =
            sortedOverEveryChoice(p, [&](const std::vector<int>& x) { return p.peakMemory(x); });
        for (double quantile : {0.0, 0.02, 0.1, 0.25, 0.5, 1.0}) {
            const double capacity = peaks[std::size_t(quantile * double(peaks.size() - 1))];
            const double fastestThatFits =
                fastestWhere(p, [&](const std::vector<int>& x) { return p.peakMemory(x) <= capacity; });
            const double bound = p.fittingLowerBound(capacity);
            QVERIFY2(bound <= fastestThatFits * (1 + 1e-12),
                     qPrintable(QStringLiteral("capacity %1: bound %2 > %3").arg(capacity).arg(bound).arg(fastestThatFits)));
            QVERIFY(bound >= p.minStepTime() * (1 - 1e-12));
        }
        QCOMPARE(p.fittingLowerBound(p.minPeakMemory() * 0.999), std::numeric_limits<double>::infinity());
    }
    void fittingLowerBoundBindsWhereMemoryDoes() {
        // mixtral-8x7b on 8 DGX H100 nodes, B 512 in 8 micro-batches, ZeRO 2, selective, on
        // data=32,model=2: the fastest candidates do not fit together, so the bound rises above
        // minStepTime(), and stays below the step time of the plan the search finds that fits.
        const Graph g = loadModel(ModelRequest{"mixtral-8x7b", {}, 512}, 8);
        const Cluster c = clusterPreset("dgx-h100", 8);
        StepSettings s;
        s.microbatches = 8;
        s.recompute = Recompute::Selective;
        s.zeroStage = 2;
        s.zeroAxes = axisBit(AxisId(0));
        s.overlap = false; // every gradient reduction exposed: the fast candidates are the big ones
        const CostModel model(g, c, Mesh::parse("data=32,model=2"), s);
        const SearchProblem p(sharedCopy(model), {}, nullptr, {}, SearchProblem::Edges::Deferred);
        const double bound = p.fittingLowerBound(c.device.memoryBytes);
        SearchRequest r;
        r.graph = sharedCopy(g);
        r.cluster = sharedCopy(c);
        r.mesh = model.mesh();
        r.settings = s;
        r.threads = 1;
        const auto found = search(r);
        qInfo("bound %.4f s, no-memory bound %.4f s, searched %.4f s (fits: %d)", bound, p.minStepTime(),
              found->evaluation->stepTime, int(found->evaluation->feasible));
        QVERIFY(found->evaluation->feasible);
        QVERIFY(bound <= found->evaluation->stepTime);
        QVERIFY(bound > p.minStepTime() * 1.03);
    }
    void minIncreaseBoundsTheOtherStagesOptimum() {
        // Same edges, other op tables (ZeRO 0 against 3, both ways): the weighted optimum of one is at
        // least the other's plus minIncrease, at every weight; by brute force over every assignment.
        const SmallMlp mlp;
        const CostModel m0 = mlp.model(0), m3 = mlp.model(3);
        const SearchProblem p0(sharedCopy(m0), {}), p3(sharedCopy(m3), {});
        const double scale = bruteMinimum(p0, 0) / 1e9;
        for (double lambda : {0.0, scale, 64 * scale, 1e6 * scale}) {
            const double min0 = bruteMinimum(p0, lambda), min3 = bruteMinimum(p3, lambda);
            QVERIFY(min0 >= min3 + p0.minIncrease(p3, lambda) - 1e-12 * min0);
            QVERIFY(min3 >= min0 + p3.minIncrease(p0, lambda) - 1e-12 * min3);
        }
        // The bound is not vacuous: ZeRO 3's sharded states weigh less at a positive weight.
        // Where ZeRO 3's gathers cost time, the bound from 0 to 3 is an increase at no weight.
        QVERIFY(p3.minIncrease(p0, 0) > -1e-12 * bruteMinimum(p0, 0));
    }
};

QTEST_GUILESS_MAIN(TestSearchProblem)
#include "tst_search_problem.moc"
