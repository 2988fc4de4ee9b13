#include "engine/search/solver.h"

#include "engine/util/error.h"
#include "engine/util/units.h"

namespace shardscope {

Solution BruteSolver::solve(const SearchProblem& problem, double lambda, const SolveControl& control) const {
    const double space = problem.spaceSize();
    if (space > kLimit)
        throw InputError("--algo brute: the space has " + formatCount(space) + " assignments, over the limit of " +
                         formatCount(kLimit) + "; use pase or tapas");
    const int n = problem.size();
    std::vector<int> choice(std::size_t(n), 0);
    Solution best;
    best.objective = std::numeric_limits<double>::infinity();
    double visited = 0;
    for (;;) {
        const double value = problem.objective(choice, lambda);
        ++visited;
        if (value < best.objective) {
            best.objective = value;
            best.choice = choice;
        }
        if ((std::size_t(visited) & 0xfff) == 0) {
            if (control.stop.stop_requested()) {
                best.complete = false;
                break;
            }
            if (control.progress)
                control.progress(visited / space);
        }
        int v = 0;
        while (v < n && ++choice[std::size_t(v)] == problem.choices(v))
            choice[std::size_t(v++)] = 0;
        if (v == n)
            break;
    }
    best.statesExplored = visited;
    return best;
}

} // namespace shardscope
