#pragma once
// How a plan cuts the graph into pipeline stages (docs/DESIGN.md, Pipelining).
//
// The graph's repeated blocks (layers) are dealt out in order to P x V model chunks; the ops before
// the first block (the embedding) join chunk 0 and the ops after the last (final norm, head, loss)
// the last chunk. Chunk c runs on stage c mod P: with V = 1 a stage holds one contiguous range of
// layers, interleaved (V > 1) it holds V ranges spaced P chunks apart, as Megatron's
// --num-layers-per-virtual-pipeline-stage does. Example: 24 layers, P 4, V 1: chunks of 6 layers,
// stage 0 = embedding + layers 0-5, stage 3 = layers 18-23 + head; with V 2 the chunks have 3 layers
// and stage 0 holds layers 0-2 and 12-14.

#include "engine/ir/graph.h"
#include "engine/ir/repeated_blocks.h"

#include <string>
#include <vector>

namespace shardscope {

/// The stage cut of one plan.
struct PipelineLayout {
    int stages = 1;               ///< P, the size of the mesh's pipe axis
    int virtualStages = 1;        ///< V, model chunks per stage
    std::vector<int> chunkBlocks; ///< repeated blocks per model chunk, P x V entries in model order
    std::vector<int> chunkOf;     ///< per op: its model chunk; empty when not pipelined
    bool locked = false;          ///< the user fixed the cut: searches keep it

    /// True when the plan has more than one stage.
    bool active() const { return stages > 1; }
    /// Number of model chunks, P x V.
    int chunks() const { return stages * virtualStages; }
    /// The stage that runs chunk `c`.
    int stageOfChunk(int c) const { return c % stages; }
    /// The stage that runs op `o`.
    int stageOf(OpId o) const { return stageOfChunk(chunkOf[o.index()]); }
    /// The blocks of each chunk as "0-5,6-11,..." (by block index, model order).
    std::string rangesText() const;
    bool operator==(const PipelineLayout&) const = default;
};

/// `blocks` layers dealt into `chunks` as evenly as possible, earlier chunks taking the remainder.
/// Throws InputError when there are fewer blocks than chunks.
std::vector<int> balancedChunkBlocks(int blocks, int chunks);

/// Parses "0-11,12-23,..." (contiguous block ranges from 0 to the last block, one per chunk) into
/// block counts. Throws InputError naming the bad range.
std::vector<int> parseChunkRanges(const std::string& text, int blocks);

/// The layout of `graph` with `chunkBlocks` (empty: balanced) over `stages` x `virtualStages` chunks.
/// Throws InputError when the graph has no repeated blocks to cut at, the counts do not sum to the
/// blocks, or a chunk is empty.
PipelineLayout makePipelineLayout(const Graph& graph, int stages, int virtualStages,
                                  std::vector<int> chunkBlocks = {});

/// The same with the graph's repeated blocks found already (searches cut one graph many times).
PipelineLayout makePipelineLayout(const Graph& graph, const RepeatedBlocks& blocks, int stages, int virtualStages,
                                  std::vector<int> chunkBlocks = {});

} // namespace shardscope
