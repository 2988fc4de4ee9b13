// Min-plus matrix powers: against the step-by-step product on random transfer matrices (some states
// planted to be dominated, some ties, some impossible entries), with the paths' costs summed by hand.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/search/min_plus_chain.h"

#include <limits>
#include <random>

using namespace shardscope;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// T^n one block at a time: row i of T^(s+1) = min over k of row i of T^s at k plus T(k, .).
Eigen::MatrixXd stepByStep(const Eigen::MatrixXd& t, int n) {
    Eigen::MatrixXd out = t;
    for (int s = 1; s < n; ++s) {
        Eigen::MatrixXd next = Eigen::MatrixXd::Constant(t.rows(), t.cols(), kInf);
        for (Eigen::Index i = 0; i < t.rows(); ++i)
            for (Eigen::Index k = 0; k < t.rows(); ++k)
                for (Eigen::Index j = 0; j < t.cols(); ++j)
                    next(i, j) = std::min(next(i, j), out(i, k) + t(k, j));
        out = next;
    }
    return out;
}

/// A random K x K transfer matrix; states from `dominated` on are copies of an earlier state made
/// dearer both as an end and as a start (so dominated), one of them an exact copy (a tie).
Eigen::MatrixXd randomTransfer(std::mt19937& rng, int k, int dominated) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Eigen::MatrixXd t(k, k);
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j)
            t(i, j) = unit(rng) < 0.1 ? kInf : unit(rng);
    for (int x = dominated; x < k; ++x) {
        const int y = std::uniform_int_distribution<int>(0, dominated - 1)(rng);
        const double extra = x == dominated ? 0.0 : 0.5;
        for (int g = 0; g < k; ++g) {
            t(g, x) = t(g, y) + extra * unit(rng);
            t(x, g) = t(y, g) + extra * unit(rng);
        }
        t(x, x) = t(y, y) + extra;
    }
    return t;
}

} // namespace

class TestMinPlusChain : public QObject {
    Q_OBJECT

private slots:
    void powersEqualTheStepByStepProduct() {
        for (int seed = 0; seed < 60; ++seed) {
            std::mt19937 rng{static_cast<unsigned>(seed)};
            const int k = std::uniform_int_distribution<int>(2, 9)(rng);
            const int dominated = seed % 3 == 0 ? k : std::uniform_int_distribution<int>(1, k)(rng);
            const Eigen::MatrixXd t = randomTransfer(rng, k, dominated);
            const int n = 1 + seed % 13;
            MinPlusChain chain(t);
            const int node = chain.power(n);
            const Eigen::MatrixXd expected = stepByStep(t, n);
            const Eigen::MatrixXd& got = chain.matrix(node);
            for (int i = 0; i < k; ++i)
                for (int j = 0; j < k; ++j) {
                    QVERIFY2(got(i, j) == expected(i, j) || std::abs(got(i, j) - expected(i, j)) <= 1e-12,
                             qPrintable(QStringLiteral("seed %1 n %2 entry (%3, %4)").arg(seed).arg(n).arg(i).arg(j)));
                    if (expected(i, j) == kInf)
                        continue;
                    // The path's steps cost what the entry says.
                    const std::vector<int> steps = chain.path(node, i, j);
                    QCOMPARE(int(steps.size()), n);
                    QCOMPARE(steps.back(), j);
                    double sum = 0;
                    int at = i;
                    for (int s : steps) {
                        sum += t(at, s);
                        at = s;
                    }
                    QVERIFY2(std::abs(sum - expected(i, j)) <= 1e-12, qPrintable(QStringLiteral("seed %1").arg(seed)));
                }
        }
    }

    void dominatedStatesLeaveTheSquarings() {
        // States 0 and 1 cost 1 to stay in and 3 to switch between; state 2 costs 3.5 to enter or
        // leave and 5 to stay in: 0 dominates it (every entry of its row and column is at least 0's).
        // T^8 on the two kept states: T(:, S) T(S, S)^6 T(S, :), a 3x2 times 2x2 squarings (6 = 110b
        // takes two squarings and one product, 3 x 2*2*2 entries) times 2x3:
        // 24 + 3*2*2 + 3*3*2 = 54 entries, where the 3x3 squarings of 8 = 1000b take three products
        // of 27 entries: 81.
        Eigen::MatrixXd t(3, 3);
        t << 1, 3, 3.5, 3, 1, 3.5, 3.5, 3.5, 5;
        MinPlusChain chain(t);
        const int node = chain.power(8);
        QCOMPARE(chain.states(), 54.0);
        // 2 -> 2: enter a kept state (3.5), stay six times (1 each), leave (3.5) = 13 (staying costs 40).
        QCOMPARE(chain.matrix(node)(2, 2), 3.5 + 6 * 1.0 + 3.5);
        // 0 -> 1: one switch (3) and seven stays = 10 (through 2 it is 3.5 + 3.5 + 6 = 13).
        QCOMPARE(chain.matrix(node)(0, 1), 3.0 + 7 * 1.0);
        const std::vector<int> steps = chain.path(node, 2, 2);
        QCOMPARE(steps.size(), std::size_t(8));
        for (std::size_t s = 0; s + 1 < steps.size(); ++s)
            QVERIFY(steps[s] != 2);
    }
};

QTEST_GUILESS_MAIN(TestMinPlusChain)
#include "tst_min_plus_chain.moc"
