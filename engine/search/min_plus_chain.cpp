#include "engine/search/min_plus_chain.h"

#include <algorithm>
#include <limits>

namespace shardscope {

MinPlusChain::MinPlusChain(Eigen::MatrixXd transfer) { nodes_.push_back(Node{std::move(transfer), -1, -1}); }

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

int MinPlusChain::power(int n) {
    int result = -1, base = 0;
    while (n > 0) {
        if (n & 1)
            result = result < 0 ? base : product(result, base);
        n >>= 1;
        if (n > 0)
            base = product(base, base);
    }
    return result;
}

void MinPlusChain::expand(int node, int from, int to, std::vector<int>& out) const {
    const Node& n = nodes_[std::size_t(node)];
    if (n.left < 0) {
        out.push_back(to);
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
