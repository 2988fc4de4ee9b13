// Variable elimination with dominated values removed: against brute force on random factor graphs
// (the optimum, the argmins, and the table left over kept variables), and a dominance by hand.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/search/dominance.h"
#include "engine/search/elimination.h"

#include <algorithm>
#include <random>
#include <set>

using namespace shardscope;

namespace {

/// A random factor graph: unary factors on every variable and pair factors on random pairs, with
/// costs drawn so that some values are clearly worse (large unary) and edges vary; a share
/// `impossible` of the pair entries is infinite (a combination no plan may take).
struct RandomProblem {
    std::vector<int> domains;
    std::vector<CostTable> factors;
};

RandomProblem randomProblem(std::mt19937& rng, double impossible = 0) {
    RandomProblem p;
    const int n = std::uniform_int_distribution<int>(3, 7)(rng);
    for (int v = 0; v < n; ++v)
        p.domains.push_back(std::uniform_int_distribution<int>(2, 5)(rng));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int v = 0; v < n; ++v) {
        CostTable f{{v}, {}};
        for (int x = 0; x < p.domains[std::size_t(v)]; ++x)
            f.table.push_back(unit(rng) < 0.4 ? 5 + 10 * unit(rng) : unit(rng));
        p.factors.push_back(std::move(f));
    }
    for (int e = 0; e < n + 2; ++e) {
        int a = std::uniform_int_distribution<int>(0, n - 1)(rng), b = std::uniform_int_distribution<int>(0, n - 1)(rng);
        if (a == b)
            continue;
        if (a > b)
            std::swap(a, b);
        CostTable f{{a, b}, {}};
        for (int x = 0; x < p.domains[std::size_t(a)] * p.domains[std::size_t(b)]; ++x)
            f.table.push_back(unit(rng) < impossible ? Elimination::kInfinity : unit(rng) < 0.3 ? 0.0 : 2 * unit(rng));
        p.factors.push_back(std::move(f));
    }
    return p;
}

double costOf(const RandomProblem& p, const std::vector<int>& x) {
    double total = 0;
    for (const CostTable& f : p.factors) {
        std::size_t at = 0;
        for (int v : f.vars)
            at = at * std::size_t(p.domains[std::size_t(v)]) + std::size_t(x[std::size_t(v)]);
        total += f.table[at];
    }
    return total;
}

/// Calls `visit` on every assignment.
template <typename Visit>
void everyAssignment(const std::vector<int>& domains, Visit visit) {
    std::vector<int> x(domains.size(), 0);
    for (;;) {
        visit(x);
        std::size_t i = 0;
        while (i < x.size() && ++x[i] == domains[i])
            x[i++] = 0;
        if (i == x.size())
            return;
    }
}

/// The argmins of `p` with every variable eliminated after dominance (`removed`: values it dropped).
std::vector<int> solvedWithDominance(const RandomProblem& p, int& removed) {
    Elimination elim(p.domains);
    for (const CostTable& f : p.factors)
        elim.addFactor(f);
    const std::vector<bool> none(p.domains.size(), false);
    removed = elim.pruneDominated(none);
    if (!elim.run(elim.greedyOrder(none), {}))
        return {};
    std::vector<int> x(p.domains.size(), 0);
    elim.backSubstitute(x);
    return x;
}

/// The PaSE order as a plain scan: at each step, the vertex with the smallest table (its domain
/// times its current neighbours' domains), ties to fewer neighbours, then to the smaller index;
/// its neighbours are joined pairwise (fill-in). Quadratic; the reference for greedyOrder().
std::vector<int> scannedOrder(const std::vector<int>& domains, const std::vector<CostTable>& factors,
                              const std::vector<bool>& keep) {
    std::vector<std::set<int>> adj(domains.size());
    for (const CostTable& f : factors)
        for (int a : f.vars)
            for (int b : f.vars)
                if (a != b)
                    adj[std::size_t(a)].insert(b);
    std::vector<bool> done = keep;
    std::vector<int> order;
    for (;;) {
        int best = -1;
        double bestSize = 0;
        for (std::size_t v = 0; v < domains.size(); ++v) {
            if (done[v])
                continue;
            double size = domains[v];
            for (int u : adj[v])
                size *= domains[std::size_t(u)];
            if (best < 0 || size < bestSize || (size == bestSize && adj[v].size() < adj[std::size_t(best)].size())) {
                best = int(v);
                bestSize = size;
            }
        }
        if (best < 0)
            return order;
        order.push_back(best);
        done[std::size_t(best)] = true;
        const std::set<int> d = adj[std::size_t(best)];
        for (int u : d) {
            adj[std::size_t(u)].erase(best);
            for (int w : d)
                if (w != u)
                    adj[std::size_t(u)].insert(w);
        }
        adj[std::size_t(best)].clear();
    }
}

} // namespace

class TestElimination : public QObject {
    Q_OBJECT
private slots:
    void prunedEliminationEqualsBruteForce() {
        // 200 seeded problems: minimum and argmins with every variable eliminated.
        int removedTotal = 0;
        for (unsigned seed = 1; seed <= 200; ++seed) {
            std::mt19937 rng(seed);
            const RandomProblem p = randomProblem(rng);
            double brute = Elimination::kInfinity;
            everyAssignment(p.domains, [&](const std::vector<int>& x) { brute = std::min(brute, costOf(p, x)); });
            int removed = 0;
            const std::vector<int> x = solvedWithDominance(p, removed);
            QCOMPARE(x.size(), p.domains.size());
            removedTotal += removed;
            for (std::size_t v = 0; v < x.size(); ++v)
                QVERIFY(x[v] >= 0 && x[v] < p.domains[v]);
            QVERIFY2(std::abs(costOf(p, x) - brute) <= 1e-12 * std::max(1.0, brute),
                     qPrintable(QStringLiteral("seed %1: %2 vs brute %3").arg(seed).arg(costOf(p, x)).arg(brute)));
        }
        QVERIFY(removedTotal > 100); // the problems are built so that dominance has work to do
    }
    void impossibleCombinationsKeepTheOptimum() {
        // Infinite pair entries: dominance compares rows with infinities in them (equal infinities
        // count as no difference); the optimum and its argmins stay those of brute force.
        int finiteOptima = 0;
        for (unsigned seed = 1; seed <= 300; ++seed) {
            std::mt19937 rng(seed);
            const RandomProblem p = randomProblem(rng, 0.15);
            double brute = Elimination::kInfinity;
            everyAssignment(p.domains, [&](const std::vector<int>& x) { brute = std::min(brute, costOf(p, x)); });
            int removed = 0;
            const std::vector<int> x = solvedWithDominance(p, removed);
            QCOMPARE(x.size(), p.domains.size());
            if (brute == Elimination::kInfinity)
                continue;
            ++finiteOptima;
            QVERIFY2(std::abs(costOf(p, x) - brute) <= 1e-12 * std::max(1.0, brute),
                     qPrintable(QStringLiteral("seed %1: %2 vs brute %3").arg(seed).arg(costOf(p, x)).arg(brute)));
        }
        QVERIFY(finiteOptima > 150);
    }
    void keptVariablesKeepTheirWholeTable() {
        // With two variables kept, the table left over them equals the brute-force minimum over the
        // others for every value of the kept pair (this is what TAPAS chains through blocks).
        for (unsigned seed = 1; seed <= 100; ++seed) {
            std::mt19937 rng(seed);
            const RandomProblem p = randomProblem(rng);
            const int n = int(p.domains.size());
            std::vector<bool> keep(std::size_t(n), false);
            keep[0] = keep[std::size_t(n - 1)] = true;
            Elimination elim(p.domains);
            for (const CostTable& f : p.factors)
                elim.addFactor(f);
            elim.pruneDominated(keep);
            QVERIFY(elim.run(elim.greedyOrder(keep), {}));
            const CostTable rest = elim.remaining();
            QCOMPARE(rest.vars, (std::vector<int>{0, n - 1}));
            std::vector<double> brute(std::size_t(p.domains[0]) * std::size_t(p.domains[std::size_t(n - 1)]),
                                      Elimination::kInfinity);
            everyAssignment(p.domains, [&](const std::vector<int>& x) {
                double& b = brute[std::size_t(x[0]) * std::size_t(p.domains[std::size_t(n - 1)]) + std::size_t(x[std::size_t(n - 1)])];
                b = std::min(b, costOf(p, x));
            });
            QCOMPARE(rest.table.size(), brute.size());
            for (std::size_t i = 0; i < brute.size(); ++i)
                QVERIFY2(std::abs(rest.table[i] - brute[i]) <= 1e-12 * std::max(1.0, brute[i]),
                         qPrintable(QStringLiteral("seed %1 entry %2").arg(seed).arg(i)));
        }
    }
    void greedyOrderIsTheScannedOrder() {
        // The incremental order equals the plain scan on random graphs, denser ones, and with kept
        // variables (whose neighbourhoods still grow by fill-in).
        for (unsigned seed = 1; seed <= 300; ++seed) {
            std::mt19937 rng(seed);
            RandomProblem p = randomProblem(rng);
            const int n = int(p.domains.size());
            for (int e = 0; seed % 2 == 0 && e < 2 * n; ++e) {   // every other problem: twice the edges
                int a = std::uniform_int_distribution<int>(0, n - 1)(rng), b = std::uniform_int_distribution<int>(0, n - 1)(rng);
                if (a == b)
                    continue;
                if (a > b)
                    std::swap(a, b);
                p.factors.push_back(CostTable{{a, b}, std::vector<double>(std::size_t(p.domains[std::size_t(a)] * p.domains[std::size_t(b)]), 0.0)});
            }
            std::vector<bool> keep(std::size_t(n), false);
            if (seed % 3 == 0)
                keep[0] = keep[std::size_t(n - 1)] = true;
            Elimination elim(p.domains);
            for (const CostTable& f : p.factors)
                elim.addFactor(f);
            QCOMPARE(elim.greedyOrder(keep), scannedOrder(p.domains, p.factors, keep));
        }
    }
    void thousandsOfBranchesFromOneTensor() {
        // A hub (domain 4) read by 5,000 branches (domain 3) joined in a sum chain (domain 2):
        // branch b_i touches the hub and chain link c_i; c_i touches c_(i-1) and c_(i+1). By hand
        // (the same as the scan on 6 branches): the chain's two end links go first (2 x 3 x 2 = 12,
        // a link, its branch and its one neighbour link), then the branches (3 x 4 x 2 = 24: branch,
        // hub, the link) alternate with the links (2 x 4 x 2 = 16: link, hub, next link) along the
        // chain; the hub, 4 x 3 x 2 at the end, goes among the last three. The largest table is 24.
        const int branches = 5000;
        std::vector<int> domains{4};
        for (int i = 0; i < branches; ++i)
            domains.push_back(3);
        for (int i = 0; i < branches; ++i)
            domains.push_back(2);
        const auto branch = [](int i) { return 1 + i; };
        const auto link = [&](int i) { return 1 + branches + i; };
        Elimination elim(domains);
        for (int i = 0; i < branches; ++i) {
            elim.addFactor(CostTable{{0, branch(i)}, std::vector<double>(12, 1.0)});
            elim.addFactor(CostTable{{branch(i), link(i)}, std::vector<double>(6, 1.0)});
            if (i > 0)
                elim.addFactor(CostTable{{link(i - 1), link(i)}, std::vector<double>(4, 1.0)});
        }
        const std::vector<bool> none(domains.size(), false);
        const std::vector<int> order = elim.greedyOrder(none);
        QCOMPARE(order.size(), domains.size());
        QCOMPARE(elim.largestTableOf(order), 24.0);
        QVERIFY(std::find(order.end() - 3, order.end(), 0) != order.end());
        QVERIFY(elim.run(order, {}));
        QCOMPARE(elim.stats().largestTable, 24.0);
        std::vector<int> x(domains.size(), 0);
        elim.backSubstitute(x);   // every cost 1: any assignment, each value within its domain
        for (std::size_t v = 0; v < x.size(); ++v)
            QVERIFY(x[v] >= 0 && x[v] < domains[v]);
    }
    void dominanceByHand() {
        // v0 with values A (unary 1) and B (unary 3); v1 with values P, Q (unary 0). Edge costs
        // (v0, v1): A-P 0.5, A-Q 0, B-P 0, B-Q 0. A costs at most 0.5 more on the edge and 2 less
        // alone: B is dominated. v1: P-A 0.5 vs Q-A 0, against B both 0: Q dominates P (0 slack,
        // edges never dearer). Then v0 = {A}, v1 = {Q}.
        const std::vector<int> domains{2, 2};
        const std::vector<CostTable> factors{{{0}, {1, 3}}, {{1}, {0, 0}}, {{0, 1}, {0.5, 0, 0, 0}}};
        const auto alive = undominatedValues(domains, factors, {false, false});
        QCOMPARE(alive[0], std::vector<int>{0});
        QCOMPARE(alive[1], std::vector<int>{1});
        // One pass in variable order: with B alone 1.2, A would beat B once P is gone (A-Q 0 = B-Q,
        // slack 0.2), but v0 is tried while P is still there (A-P costs 0.5 more > 0.2): B stays.
        // v1 then sees both of v0's values: Q still dominates P.
        const std::vector<CostTable> second{{{0}, {1, 1.2}}, {{1}, {0, 0}}, {{0, 1}, {0.5, 0, 0, 0}}};
        const auto onePass = undominatedValues(domains, second, {false, false});
        QCOMPARE(onePass[0], (std::vector<int>{0, 1}));
        QCOMPARE(onePass[1], std::vector<int>{1});
        // A value that is cheapest for some neighbour value stays: A-P = A-Q = 0.5, B 1.2 alone with
        // free edges. B is cheaper whatever v1 takes, yet only values at most as costly alone are tried
        // as dominators, so A stays too; of the identical P and Q one stays.
        const std::vector<CostTable> both{{{0}, {1, 1.2}}, {{1}, {0, 0}}, {{0, 1}, {0.5, 0.5, 0, 0}}};
        const auto left = undominatedValues(domains, both, {false, false});
        QCOMPARE(left[0], (std::vector<int>{0, 1}));
        QCOMPARE(left[1].size(), std::size_t(1));
        // Kept variables keep every value.
        QCOMPARE(undominatedValues(domains, factors, {true, false})[0], (std::vector<int>{0, 1}));
    }
};

QTEST_GUILESS_MAIN(TestElimination)
#include "tst_elimination.moc"
