#pragma once
// Finding repeated substructure (TAPAS, Shi et al.): ops are fingerprinted structurally (kind, rule,
// shapes, and where their inputs come from relative to them); the longest run of the topological
// order that repeats with a fixed period is the stack of layers.

#include "engine/ir/graph.h"

#include <optional>
#include <vector>

namespace shardscope {

/// L identical blocks that form a chain: each block reads only its own ops, the exit op of the
/// block before it (or, for the first block, ops before the region), and parameters.
struct RepeatedBlocks {
    std::vector<std::vector<OpId>> blocks; ///< [block][position]
    int exitPosition = 0;                  ///< position of the op whose output feeds the next block
    std::vector<int> blockOf;              ///< per op: its block, or -1 outside the region
    std::vector<int> positionOf;           ///< per op: its position in its block, or -1

    /// Number of blocks.
    int count() const { return static_cast<int>(blocks.size()); }
    /// Ops per block.
    int period() const { return blocks.empty() ? 0 : static_cast<int>(blocks.front().size()); }
    /// The exit op of block `i`.
    OpId exit(int i) const { return blocks[std::size_t(i)][std::size_t(exitPosition)]; }
    /// The op `o` repeats when folded: for an op of block 2 or later, the op at its position in
    /// block 1; otherwise `o` itself.
    OpId twin(OpId o) const {
        const std::size_t i = o.index();
        return blockOf[i] >= 2 ? blocks[1][std::size_t(positionOf[i])] : o;
    }
    /// Blocks [first, first + count) alone, renumbered from 0; the other blocks' ops are outside the
    /// region. Still a chain: the run's first block reads the exit of the block before it, an op before
    /// the region now.
    RepeatedBlocks run(int first, int count) const;
};

/// The repeated blocks of `graph` covering the most ops (at least two blocks of one op or more),
/// or nullopt when there are none or their edges do not form a chain.
std::optional<RepeatedBlocks> findRepeatedBlocks(const Graph& graph);

/// The layers a pipeline cuts at and full recomputation checkpoints: the repeated blocks, each split
/// into the named layers it holds when it holds several that chain up (a sliding-window and a
/// full-attention layer in turn repeat as a pair; their layers are cut apart), with the layers of that
/// size that chain on after the blocks (Gemma 3's 26 layers: 4 blocks of 6, then 2), else the blocks
/// themselves. Its blocks chain as RepeatedBlocks' do and have equal sizes, but need not be identical:
/// twin() means nothing on them.
std::optional<RepeatedBlocks> findLayers(const Graph& graph);
/// The same from `graph`'s repeated blocks `blocks`, found already.
RepeatedBlocks layersOf(const Graph& graph, const RepeatedBlocks& blocks);

} // namespace shardscope
