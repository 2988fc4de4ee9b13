#pragma once
// The factor graph of a SearchProblem, shared by the exact solvers.

#include "engine/search/elimination.h"
#include "engine/search/search_problem.h"

#include <string>
#include <vector>

namespace shardscope {

/// One unary factor per op (time + lambda x memory per candidate) and one factor per pair table.
Elimination problemFactors(const SearchProblem& problem, double lambda);
/// The greedy PaSE order over the variables not kept; throws InputError (naming `algorithm`) when a
/// dependent set along it needs a table over PaseSolver::kTableLimit, before any table is built.
std::vector<int> boundedOrder(const Elimination& elim, const std::vector<bool>& keep, const std::string& algorithm);

} // namespace shardscope
