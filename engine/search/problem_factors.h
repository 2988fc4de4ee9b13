#pragma once
// The factor graph of a SearchProblem, shared by the exact solvers.

#include "engine/search/elimination.h"
#include "engine/search/search_problem.h"

namespace shardscope {

/// One unary factor per op (time + lambda x memory per candidate) and one factor per pair table.
Elimination problemFactors(const SearchProblem& problem, double lambda);

} // namespace shardscope
