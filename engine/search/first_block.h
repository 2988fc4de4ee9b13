#pragma once
// The first of TAPAS's repeated blocks folded into the chain too. Block 0 differs from the others
// only in what feeds it: an op before the region instead of the previous block's exit. When that op
// feeds it as some ghost value of the exit would, block 0's transfer matrix is rows of the blocks'
// one, and the head problem loses a whole block. Example: GPT's position add feeds norm1 and add1 of
// the first layer as the previous layer's add2 feeds them; its candidates produce the same
// shardings of the same [b, s, h] tensor. Llama's embedding also produces shardings partial over
// the vocabulary axis, which no add2 does: those become extra ghost values.

#include "engine/ir/repeated_blocks.h"
#include "engine/search/search_problem.h"

#include <map>
#include <optional>
#include <vector>

namespace shardscope {

/// Cost of pair `p` with op `v` (one of its two ends) at candidate `kv` and the other end at `kw`.
double pairCost(const SearchProblem& problem, const PairTable& p, int v, int kv, int kw);

/// How block 0 joins the chain: `entry` is the one op before the region that feeds it. The ghost of
/// the previous exit takes the exit's candidates and then `extra`: the entry candidates that feed a
/// block as no exit candidate does. ghostOf[e] is the ghost value that feeds block 1 exactly as
/// entry candidate e feeds block 0 (the same pair costs to every consumer).
struct FirstBlockGhost {
    int entry = -1;
    std::vector<int> ghostOf;
    std::vector<int> extra;                        ///< entry candidates, ghost values exitK, exitK + 1, ...
    std::map<int, const PairTable*> entryPairs;    ///< entry -> block 0, by consumer position
};

/// The ghost mapping when block 0 has block 1's candidates and op costs, its inner pairs block 1's
/// tables, and a single op before the region feeds exactly the positions the previous exit feeds in
/// block 1; nothing otherwise (the first block then stays in the head).
std::optional<FirstBlockGhost> firstBlockAsGhost(const SearchProblem& problem, const RepeatedBlocks& rb);

} // namespace shardscope
