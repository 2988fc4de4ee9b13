#pragma once
// Exact minimisation of a sum of table factors by variable elimination, in the vertex order of
// PaSE (Elango, IPDPS 2021): repeatedly sequence the variable whose dependent set (its current
// neighbours) is smallest and merge that set into its neighbours' (fill-in). Eliminating v builds a
// table over its dependent set D(v) holding min over v; the cost is O(K^(|D(v)|+1)) per vertex.

#include <functional>
#include <limits>
#include <vector>

namespace shardscope {

/// A cost table (a factor of the objective) over `vars` (ascending), row-major with the last variable fastest.
struct CostTable {
    std::vector<int> vars;
    std::vector<double> table;
};

/// What one elimination run did.
struct EliminationStats {
    double states = 0;          ///< table entries evaluated (assignments of D(v) x choices of v)
    int largestDependentSet = 0;
    double largestTable = 0;
};

/// A factor graph over variables with finite domains, reduced by eliminating variables.
/// Example: three ops in a chain with pair tables (0,1) and (1,2): the order eliminates 0 (D = {1}),
/// then 1 (D = {2}), leaving a table over {2}; backSubstitute() recovers the argmins.
class Elimination {
public:
    /// Variables 0..domains.size()-1, variable v taking values 0..domains[v]-1.
    explicit Elimination(std::vector<int> domains);

    /// Adds a factor. Assumes its vars are ascending and its table has the product of their domains.
    void addFactor(CostTable f);
    /// Drops the values another value of the same variable beats whatever the neighbours take
    /// (see dominance.h); kept variables keep all theirs. Call before run(), on unary and pair factors.
    /// Returns how many values went. Indices in and out of backSubstitute() stay the original ones.
    int pruneDominated(const std::vector<bool>& keep);
    /// The greedy PaSE order over the variables with keep[v] false (ties: smaller table, then index).
    std::vector<int> greedyOrder(const std::vector<bool>& keep) const;
    /// Largest table (entries times the eliminated domain) that eliminating `order` would build.
    double largestTableOf(const std::vector<int>& order) const;
    /// Eliminates `order`. Returns false if `stop` asked to stop (the object is then unusable).
    bool run(const std::vector<int>& order, const std::function<bool()>& stop);
    /// The sum of the factors left (over the kept variables), as one factor.
    CostTable remaining() const;
    /// Sets the eliminated variables of `assignment` to their argmins, given the kept ones.
    void backSubstitute(std::vector<int>& assignment) const;
    /// What run() did.
    const EliminationStats& stats() const { return stats_; }

    static constexpr double kInfinity = std::numeric_limits<double>::infinity();

private:
    struct Step {
        int var;
        std::vector<int> scope;             ///< D(var), ascending
        std::vector<std::size_t> factors;   ///< the factors (indices into factors_) it summed
    };
    CostTable withVarFirst(const CostTable& f, int var) const;
    CostTable combine(const std::vector<const CostTable*>& factors, const std::vector<int>& scope, int eliminated,
                      const std::function<bool()>* stop = nullptr) const;
    int argminOf(const Step& step, std::vector<int>& assignment) const;

    std::vector<int> domains_;
    std::vector<std::vector<int>> values_;   ///< per variable, original index of each remaining value (empty: all)
    std::vector<CostTable> factors_;
    std::vector<std::vector<std::size_t>> incident_;   ///< per variable, the factors (alive or not) over it
    std::vector<bool> alive_;
    std::vector<Step> steps_;
    EliminationStats stats_;
};

} // namespace shardscope
