#include "engine/search/min_plus_chain.h"

#include <algorithm>
#include <limits>

namespace shardscope {

MinPlusChain::MinPlusChain(Eigen::MatrixXd transfer) { leaf(std::move(transfer), {}); }

int MinPlusChain::product(int a, int b) {
    const Eigen::MatrixXd& A = nodes_[std::size_t(a)].m;
    const Eigen::MatrixXd& B = nodes_[std::size_t(b)].m;
    const Eigen::Index rows = A.rows(), cols = B.cols(), inner = A.cols();
    Node c;
    c.m = Eigen::MatrixXd::Constant(rows, cols, std::numeric_limits<double>::infinity());
    // Column by column (Eigen is column-major): C(:, j) = min over k of A(:, k) + B(k, j), the inner
    // loop contiguous in both C and A. The midpoints are recomputed by path() for the few entries it
    // needs instead of being stored for all.
    for (Eigen::Index j = 0; j < cols; ++j) {
        double* out = c.m.col(j).data();
        for (Eigen::Index k = 0; k < inner; ++k) {
            const double bkj = B(k, j);
            const double* col = A.col(k).data();
            for (Eigen::Index i = 0; i < rows; ++i)
                out[i] = std::min(out[i], col[i] + bkj);
        }
    }
    states_ += double(rows) * double(cols) * double(inner);
    c.left = a;
    c.right = b;
    nodes_.push_back(std::move(c));
    return int(nodes_.size()) - 1;
}

namespace {

/// The states of `t` that no other kept state dominates both as an end and as a start: y dominates
/// x when t(g, x) >= t(g, y) for every g and t(x, h) >= t(y, h) for every h. Replacing x by y at any
/// inner position of a path then costs no more (consecutive x's are replaced one at a time, each
/// step no dearer since t(y, x) <= t(x, x) and t(y, y) <= t(y, x)), so inner boundaries need only
/// the kept states. Of identical states the last stays.
std::vector<int> undominatedStates(const Eigen::MatrixXd& t) {
    const int k = int(t.rows());
    std::vector<bool> gone(std::size_t(k), false);
    auto dominates = [&](int y, int x) {
        for (int g = 0; g < k; ++g)
            if (t(g, x) < t(g, y) || t(x, g) < t(y, g))
                return false;
        return true;
    };
    for (int x = 0; x < k; ++x)
        for (int y = 0; y < k && !gone[std::size_t(x)]; ++y)
            gone[std::size_t(x)] = y != x && !gone[std::size_t(y)] && dominates(y, x);
    std::vector<int> kept;
    for (int x = 0; x < k; ++x)
        if (!gone[std::size_t(x)])
            kept.push_back(x);
    return kept;
}

} // namespace

int MinPlusChain::leaf(Eigen::MatrixXd m, std::vector<int> columns) {
    nodes_.push_back(Node{std::move(m), -1, -1, std::move(columns)});
    return int(nodes_.size()) - 1;
}

int MinPlusChain::squarings(int base, int n) {
    int result = -1;
    while (n > 0) {
        if (n & 1)
            result = result < 0 ? base : product(result, base);
        n >>= 1;
        if (n > 0)
            base = product(base, base);
    }
    return result;
}

int MinPlusChain::power(int n) {
    const Eigen::MatrixXd& t = nodes_.front().m;
    const std::vector<int> kept = n >= 2 && t.rows() == t.cols() ? undominatedStates(t) : std::vector<int>{};
    if (kept.empty() || kept.size() == std::size_t(t.rows()))
        return squarings(0, n);
    // T^n = T(:, S) (T(S, S))^(n-2) T(S, :) with S the kept states: the inner boundaries need no other.
    // Example: 60 states of which 15 are kept make each squaring 64x cheaper.
    const Eigen::Index k = t.rows(), s = Eigen::Index(kept.size());
    Eigen::MatrixXd into(k, s), inner(s, s), outOf(s, k);
    for (Eigen::Index j = 0; j < s; ++j) {
        into.col(j) = t.col(kept[std::size_t(j)]);
        outOf.row(j) = t.row(kept[std::size_t(j)]);
        for (Eigen::Index i = 0; i < s; ++i)
            inner(i, j) = t(kept[std::size_t(i)], kept[std::size_t(j)]);
    }
    const int first = leaf(std::move(into), kept);
    const int last = leaf(std::move(outOf), {});
    if (n == 2)
        return product(first, last);
    const int middle = squarings(leaf(std::move(inner), kept), n - 2);
    return product(product(first, middle), last);
}

void MinPlusChain::expand(int node, int from, int to, std::vector<int>& out) const {
    const Node& n = nodes_[std::size_t(node)];
    if (n.left < 0) {
        out.push_back(n.columns.empty() ? to : n.columns[std::size_t(to)]);
        return;
    }
    const Eigen::MatrixXd& A = nodes_[std::size_t(n.left)].m;
    const Eigen::MatrixXd& B = nodes_[std::size_t(n.right)].m;
    int k = 0;
    double best = std::numeric_limits<double>::infinity();
    for (int x = 0; x < int(A.cols()); ++x)
        if (A(from, x) + B(x, to) < best) {
            best = A(from, x) + B(x, to);
            k = x;
        }
    expand(n.left, from, k, out);
    expand(n.right, k, to, out);
}

std::vector<int> MinPlusChain::path(int node, int from, int to) const {
    std::vector<int> out;
    expand(node, from, to, out);
    return out;
}

} // namespace shardscope
