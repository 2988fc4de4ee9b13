#include "engine/search/min_plus_chain.h"

#include <limits>

namespace shardscope {

MinPlusChain::MinPlusChain(Eigen::MatrixXd transfer) { nodes_.push_back(Node{std::move(transfer), {}, -1, -1}); }

int MinPlusChain::product(int a, int b) {
    const Eigen::MatrixXd& A = nodes_[std::size_t(a)].m;
    const Eigen::MatrixXd& B = nodes_[std::size_t(b)].m;
    const Eigen::Index rows = A.rows(), cols = B.cols();
    Node c;
    c.m = Eigen::MatrixXd::Constant(rows, cols, std::numeric_limits<double>::infinity());
    c.mid = Eigen::MatrixXi::Zero(rows, cols);
    for (Eigen::Index k = 0; k < A.cols(); ++k) {
        // Candidate through midpoint k: A(i, k) + B(k, j) for every (i, j).
        const Eigen::MatrixXd through = A.col(k).replicate(1, cols) + B.row(k).replicate(rows, 1);
        // Evaluated now: the comparison must see the minimum before this midpoint, for both selects.
        const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> better = through.array() < c.m.array();
        c.m = better.select(through, c.m);
        c.mid = better.select(Eigen::MatrixXi::Constant(rows, cols, int(k)), c.mid);
    }
    states_ += double(rows) * double(cols) * double(A.cols());
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
    const int k = n.mid(from, to);
    expand(n.left, from, k, out);
    expand(n.right, k, to, out);
}

std::vector<int> MinPlusChain::path(int node, int from, int to) const {
    std::vector<int> out;
    expand(node, from, to, out);
    return out;
}

} // namespace shardscope
