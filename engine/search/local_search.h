#pragma once
// The bounded fallback of `auto` when a DP table would be too large.

#include "engine/search/solver.h"

namespace shardscope {

/// Iterated conditional modes from `start`: each op in turn takes its best candidate given its
/// neighbours, for at most `passes` passes. Not exact; the note says how many passes it made.
Solution localSearch(const SearchProblem& p, std::vector<int> start, double lambda, int passes,
                     const SolveControl& control);

} // namespace shardscope
