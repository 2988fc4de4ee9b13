#pragma once
// Dominated values: a value x of variable v can go when another value y of v costs no more whatever
// v's neighbours take (neighbourhood substitutability in soft constraint problems):
//     u(x) - u(y) >= sum over pair factors f(v, w) of  max_j ( f(y, j) - f(x, j) ),
// with u the sum of v's unary factors and j over w's remaining values. For every assignment of the
// other variables, the minimum over v's remaining values is then the minimum over all of them, so an
// elimination on the reduced domains finds the same optimum (and, for variables kept out of the
// elimination, the same table). Example: an op whose candidate A computes in 1 s and candidate B in
// 3 s, and whose edges cost at most 0.5 s more under A than under B for any neighbour: B is gone.

#include "engine/search/elimination.h"

#include <vector>

namespace shardscope {

/// The values of each variable that survive dominance (ascending original indices). Variables with
/// keep[v], and variables in a factor over more than two variables, keep every value. Dominators
/// tried for a value: the 256 cheapest others alone that are no dearer alone. One pass in variable
/// order, each variable against its neighbours' values left so far. Of identical values one stays. Each test
/// is decided by row summaries where they suffice (means, extremes, and the differences where y's
/// row peaks and x's dips) before the full comparison, which stops once the factors compared so far
/// plus the probes of the rest exceed the slack.
std::vector<std::vector<int>> undominatedValues(const std::vector<int>& domains, const std::vector<CostTable>& factors,
                                                const std::vector<bool>& keep);

} // namespace shardscope
