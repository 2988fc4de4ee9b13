#pragma once
// Min-plus matrix powers with the factors kept, so that the optimal sequence of boundary states
// through L identical blocks can be expanded after the fact.

#include <Eigen/Core>

#include <vector>

namespace shardscope {

/// T^n under (min, +) by repeated squaring: O(K^3 log n) instead of O(K^2 n) per query, with every
/// product's two factors kept so that path() can find each midpoint again. States that another
/// dominates both as an end and as a start of T are left out of the inner boundaries, so the
/// squarings run on the kept states only.
class MinPlusChain {
public:
    /// `transfer`(i, j) is the cost of going from boundary state i to state j through one block.
    explicit MinPlusChain(Eigen::MatrixXd transfer);

    /// Builds T^n (n >= 1) and returns its handle.
    int power(int n);
    /// The matrix of handle `node`.
    const Eigen::MatrixXd& matrix(int node) const { return nodes_[std::size_t(node)].m; }
    /// The states after each of the n steps of the best path from `from` to `to` through T^n `node`
    /// (the last entry is `to`).
    std::vector<int> path(int node, int from, int to) const;
    /// Entries computed by the products, for the search report.
    double states() const { return states_; }

private:
    struct Node {
        Eigen::MatrixXd m;
        int left = -1;
        int right = -1;
        std::vector<int> columns;  ///< of a factor: the state of each column (empty: column j is state j)
    };
    int leaf(Eigen::MatrixXd m, std::vector<int> columns);
    int product(int a, int b);
    /// base^n (n >= 1) by repeated squaring.
    int squarings(int base, int n);
    void expand(int node, int from, int to, std::vector<int>& out) const;

    std::vector<Node> nodes_;
    double states_ = 0;
};

} // namespace shardscope
