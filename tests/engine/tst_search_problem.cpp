// The search's tables against the cost model they come from: every pair table entry is the sum of
// its edges' costs (CostModel::edgeCost, the breakdown the evaluator prints), whether the tables were
// built for this recomputation, weighed from another's pass-split parts, or folded over repeats.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/search/repeated_blocks.h"
#include "engine/search/search_problem.h"

#include <cmath>
#include <map>

using namespace shardscope;

namespace {

/// A 4-layer GPT small enough that every pair table can be checked entry by entry.
Graph smallGpt() {
    ModelParams p;
    p.apply({"layers=4", "hidden=64", "heads=4", "seq=32", "vocab=128", "batch=8"});
    return buildModel("gpt", p, 2, "gpt");
}

StepSettings settings(Recompute r) {
    StepSettings s;
    s.microbatches = 2;
    s.recompute = r;
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
        compareWithEdgeCosts(model, SearchProblem(model, {}));
    }
    void partsOfAnotherRecomputationGiveThisOnesTables() {
        // Built for no recomputation, weighed for full (every forward resharding runs twice) and
        // selective (only those into the attention core): the tables of a fresh build for each.
        const Graph g = smallGpt();
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const CostModel none(g, c, mesh, settings(Recompute::None));
        const SearchProblem source(none, {});
        QVERIFY(source.edgeParts());
        for (Recompute r : {Recompute::Selective, Recompute::Full}) {
            const CostModel model(g, c, mesh, settings(r));
            SearchProblem weighed(model, {}, nullptr, {}, SearchProblem::Edges::Deferred);
            QVERIFY(!weighed.hasEdges());
            weighed.useEdgeParts(source.edgeParts());
            compareWithEdgeCosts(model, weighed);
            SearchProblem shared(model, {}, nullptr, {}, SearchProblem::Edges::Deferred);
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
        compareWithEdgeCosts(model, SearchProblem(model, {}, &*blocks));
    }
    void recomputationOnlyRepeatsTheForwardPart() {
        // By hand on one edge: full recomputation runs each forward resharding once more per
        // micro-batch, so its table minus none's is none's forward part; the backward is unchanged.
        const Graph g = smallGpt();
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const CostModel none(g, c, mesh, settings(Recompute::None));
        const CostModel full(g, c, mesh, settings(Recompute::Full));
        const OpStrategy replicated = OpStrategy::replicated(mesh.rank());
        int checked = 0;
        for (const Edge& e : none.edges()) {
            const auto strategies = enumerateStrategies(g.op(e.from), mesh);
            for (const OpStrategy& from : strategies) {
                const auto pe = none.producerEnd(e, from);
                const auto ce = none.consumerEnd(e, replicated);
                const CostModel::EdgeTimes t = none.edgeTimes(e, pe, ce);
                QCOMPARE(none.edgeTime(e, pe, ce), t.forward + t.backward);
                QCOMPARE(full.edgeTime(e, pe, ce), 2 * t.forward + t.backward);
                checked += t.forward > 0 ? 1 : 0;
            }
        }
        QVERIFY(checked > 0);
    }
};

QTEST_GUILESS_MAIN(TestSearchProblem)
#include "tst_search_problem.moc"
