#include "engine/search/solver.h"

#include "engine/search/problem_factors.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

namespace shardscope {

/// The factor graph of `problem`: a unary factor per op and a pair factor per connected pair.
Elimination problemFactors(const SearchProblem& problem, double lambda) {
    std::vector<int> domains;
    for (int v = 0; v < problem.size(); ++v)
        domains.push_back(problem.choices(v));
    Elimination elim(domains);
    for (int v = 0; v < problem.size(); ++v) {
        CostTable f{{v}, {}};
        for (int k = 0; k < problem.choices(v); ++k)
            f.table.push_back(problem.time(v, k) + lambda * problem.memory(v, k));
        elim.addFactor(std::move(f));
    }
    for (const PairTable& p : problem.pairs())
        elim.addFactor(CostTable{{p.a, p.b}, p.table()});
    return elim;
}

std::vector<int> boundedOrder(const Elimination& elim, const std::vector<bool>& keep, const std::string& algorithm) {
    std::vector<int> order = elim.greedyOrder(keep);
    const double largest = elim.largestTableOf(order);
    if (largest > PaseSolver::kTableLimit)
        throw InputError("--algo " + algorithm + ": a dependent set needs a table of " + formatCount(largest) +
                         " entries, over the limit of " + formatCount(PaseSolver::kTableLimit));
    return order;
}

Solution PaseSolver::solve(const SearchProblem& problem, double lambda, const SolveControl& control) const {
    Elimination elim = problemFactors(problem, lambda);
    const std::vector<bool> keep(std::size_t(problem.size()), false);
    elim.pruneDominated(keep);
    const std::vector<int> order = boundedOrder(elim, keep, "pase");
    std::size_t done = 0;
    const bool finished = elim.run(order, [&] {
        if (control.progress && (++done & 0x3f) == 0)
            control.progress(double(done) / double(order.size()));
        return control.stop.stop_requested();
    });
    Solution s;
    s.statesExplored = elim.stats().states;
    if (!finished) {
        s.complete = false;
        return s;
    }
    s.choice.assign(std::size_t(problem.size()), 0);
    elim.backSubstitute(s.choice);
    s.objective = problem.objective(s.choice, lambda);
    return s;
}

} // namespace shardscope
