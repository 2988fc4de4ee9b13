#pragma once
// Where a pipeline cuts the graph (docs/DESIGN.md, Pipelining): the cut at repeated-block boundaries that
// minimises the slowest stage's time per micro-batch, subject to every stage fitting its memory with
// the micro-batches its schedule keeps in flight.
//
// A plan's evaluation is reduced to a profile of segments in model order (the ops before the blocks,
// each block, the ops after) with their time per micro-batch, once-per-step work and memory; a cut's
// stage figures are sums over its segments, composed as composePipeline() composes them, so they equal
// the evaluation of that cut whenever every chunk boundary sends the same tensor (the blocks' exit).
//
// One chunk per stage (V = 1): an exact dynamic programme over the block boundaries,
//   best[s][j] = min over i < j of max(best[s-1][i], time of stage s holding blocks i..j-1),
// O(P L^2), where stage s holding those blocks must fit its memory (its activations times its
// in-flight micro-batches: stage 0 holds the most under 1F1B, so memory pushes blocks to later
// stages). Among the cuts with the least slowest stage, a second pass takes the least per-step work.
// When no cut fits, the cut with the least peak over capacity (the closest to fitting).
// Worked example: 8 blocks of 1 s, an embedding of 0.5 s and a head of 3 s, P 3 (sends left out):
// the balanced cut 3,3,2 runs 3.5 / 3 / 5 s per micro-batch; the programme's 3,4,1 runs 3.5 / 4 / 4 s,
// so the pipeline's pace drops from 5 s to 4 s a micro-batch.
// Interleaved (V > 1): chunk c runs on stage c mod P, so stages are not contiguous; the cut keeps the
// middle chunks balanced and chooses the first and the last chunk's blocks (Megatron's
// --decoder-first/last-pipeline-num-layers), every pair tried.

#include "engine/evaluation/evaluation.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/pipeline/pipeline_layout.h"

#include <optional>
#include <vector>

namespace shardscope {

/// One segment's share of a stage: per micro-batch time, per-step work and memory.
struct CutSegment {
    double time = 0;         ///< seconds per micro-batch: compute, recomputation, exposed communication
    double work = 0;         ///< seconds per step: optimizer and exposed step-phase communication
    double statics = 0;      ///< bytes per device: parameters, gradients, optimizer state
    double activations = 0;  ///< bytes per device of one micro-batch's activations, less the workspace
    double workspace = 0;    ///< its ops' share of one block's recompute working set
    double buffers = 0;      ///< its largest transient buffer
};

/// A plan's costs by segment, for cutting it.
struct CutProfile {
    CutSegment before;                ///< ops before the first block (with chunk 0)
    std::vector<CutSegment> blocks;   ///< each repeated block
    CutSegment after;                 ///< ops after the last block (with the last chunk)
    double sendForward = 0;           ///< seconds per micro-batch a chunk spends sending its output on
    double sendBackward = 0;          ///< and sending its input's gradient back
};

/// One stage's figures under a cut.
struct CutStage {
    double time = 0;    ///< seconds per micro-batch (StageReport::perMicrobatch())
    double work = 0;    ///< seconds per step (StageReport::stepWork)
    double memory = 0;  ///< peak bytes per device (StageReport::peakMemory)
    double memoryFloor = 0; ///< of memory, all but the recompute working set: it only grows with the stage
};

/// The profile of `plan` (pipelined) from its evaluation `e`; `blocks` are the graph's repeated blocks.
CutProfile cutProfile(const Evaluation& e, const Plan& plan, const RepeatedBlocks& blocks, int microbatches);

/// A profile of `blocks` blocks of 1 s each and nothing else: cutting it gives the most even cut.
CutProfile uniformProfile(int blocks);

/// Per stage, the figures of the cut `chunkBlocks` (P x V chunks) under `settings`.
std::vector<CutStage> cutStages(const CutProfile& profile, const std::vector<int>& chunkBlocks, int stages,
                                const StepSettings& settings);

/// The cut (blocks per chunk, P x V entries) as the header describes, or nullopt when no cut keeps
/// every block of `blockStage` (per block: the stage it must stay on, or -1) on its stage, or, without
/// `closest`, when no cut fits (rather than the one closest to fitting).
std::optional<std::vector<int>> chooseStageCut(const CutProfile& profile, int stages, const StepSettings& settings,
                                               double capacity, const std::vector<int>& blockStage = {},
                                               bool closest = true);

/// True when the cut `to` beats `from` on `profile`: it fits and `from` does not, or a faster slowest
/// stage, or the same pace with less per-step work (what makes a cut worth evaluating in full).
bool cutGains(const CutProfile& profile, const std::vector<int>& from, const std::vector<int>& to, int stages,
              const StepSettings& settings, double capacity);

/// Per block, the stage that a locked op in it pins it to under `plan`'s layout, or -1; empty when the
/// plan is not pipelined or locks nothing inside the blocks.
std::vector<int> lockedBlockStages(const Plan& plan, const RepeatedBlocks& blocks);

} // namespace shardscope
