#include "engine/search/local_search.h"

#include <limits>

namespace shardscope {

Solution localSearch(const SearchProblem& p, std::vector<int> start, double lambda, int passes,
                     const SolveControl& control) {
    std::vector<std::vector<const PairTable*>> touching(std::size_t(p.size()));
    for (const PairTable& t : p.pairs()) {
        touching[std::size_t(t.a)].push_back(&t);
        touching[std::size_t(t.b)].push_back(&t);
    }
    Solution s;
    int pass = 0;
    for (bool changed = true; changed && pass < passes; ++pass) {
        changed = false;
        for (int v = 0; v < p.size(); ++v) {
            if (control.stop.stop_requested())
                break;
            int best = start[std::size_t(v)];
            double bestCost = std::numeric_limits<double>::infinity();
            for (int k = 0; k < p.choices(v); ++k) {
                double c = p.time(v, k) + lambda * p.memory(v, k);
                for (const PairTable* t : touching[std::size_t(v)]) {
                    const int ka = t->a == v ? k : start[std::size_t(t->a)];
                    const int kb = t->b == v ? k : start[std::size_t(t->b)];
                    c += t->table()[std::size_t(ka) * std::size_t(p.choices(t->b)) + std::size_t(kb)];
                }
                s.statesExplored += 1;
                if (c < bestCost - 1e-15) {
                    bestCost = c;
                    best = k;
                }
            }
            changed = changed || best != start[std::size_t(v)];
            start[std::size_t(v)] = best;
        }
    }
    s.choice = std::move(start);
    s.objective = p.objective(s.choice, lambda);
    s.note = "local search (iterated conditional modes from the best baseline), " + std::to_string(pass) +
             " of at most " + std::to_string(passes) + " passes";
    return s;
}

} // namespace shardscope
