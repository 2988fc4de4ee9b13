#pragma once
// Which repeated blocks a search folds (TAPAS) when locks or pins make some blocks differ: the longest
// run of consecutive blocks that folding keeps exact. In a run [s, e), every op of blocks s + 2 .. e - 1
// has the pin of its twin in block s + 1, and block s's exit that of block s + 1 (the edges into
// block s + 1 then stand for those into every later block of the run); block s's other ops may differ,
// as block 0's may in a fold of the whole stack. The blocks outside the run are solved op by op with
// the rest of the graph.
//
// Example: 80 blocks, one op of block 40 locked (not its exit): the run is blocks 40..79, with block 40
// its first block; blocks 0..39 are solved unfolded. With no lock the run is every block.

#include "engine/ir/repeated_blocks.h"
#include "engine/sharding/strategy.h"

#include <optional>
#include <vector>

namespace shardscope {

/// The run of `layers` to fold under `pins` (per op; shorter than the op count means unpinned):
/// the longest, the earliest of equal length; nullopt when no two consecutive blocks fold.
std::optional<RepeatedBlocks> foldedRun(const RepeatedBlocks& layers, const std::vector<std::optional<StrategyPin>>& pins);

} // namespace shardscope
