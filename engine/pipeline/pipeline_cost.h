#pragma once
// What pipelining adds to a plan's costs (docs/DESIGN.md, Pipelining): the transfers between model
// chunks and the activations a stage holds under its schedule. The stages' composition into a step is
// engine/evaluation/pipeline_composition.h.
//
// Activations held: GPipe m micro-batches per stage, 1F1B min(P-s, m), interleaved
// min(2 (P-s-1) + (V-1) P + 1, V m) chunks of 1/V of the stage (stage 0: P (1 + (P-1)/(P V))
// micro-batches), less one block's recompute working set, which is live once. Example: P 4, m 8, 1F1B:
// stage 0 keeps 4 micro-batches of its activations, stage 3 one.

#include "engine/cost/cost_model.h"
#include "engine/plans/plan.h"

namespace shardscope {

/// One tensor crossing from one model chunk to another, once per micro-batch: sent forward at the
/// producer's sharding, its gradient sent back. A tensor replicated over some stage axes goes in 1/r
/// pieces, one per replica, and is all-gathered on arrival (Megatron's scatter-gather of pipeline
/// tensors). Each collective's count is per step (micro-batches).
struct StageTransfer {
    OpId from;                              ///< producer (last chunk's side)
    OpId to;                                ///< first consumer in the receiving chunk
    int fromChunk = 0;
    int toChunk = 0;
    std::vector<CollectiveCost> forward;    ///< the send, then the gather on arrival if any
    std::vector<CollectiveCost> backward;   ///< the gradient's, empty when it needs none
};

/// What carries `edge`'s tensor across a stage boundary under the producer's `strategy`, in `phase`
/// (the activation forward, its gradient backward): the send, then the gather on arrival when the
/// stage's axes hold the tensor replicated; each counted once per micro-batch.
std::vector<CollectiveCost> boundaryCollectives(const CostModel& model, const Edge& edge, const OpStrategy& producer,
                                                Phase phase);

/// Seconds per step `edge`'s tensor costs crossing one stage boundary, forward and (if it needs one)
/// its gradient back.
double boundaryTime(const CostModel& model, const Edge& edge, const OpStrategy& producer);

/// Every stage transfer of `plan`, in edge order. Assumes plan.pipeline is active.
std::vector<StageTransfer> stageTransfers(const CostModel& model, const Plan& plan);

/// The micro-batches of activations stage `stage` holds at its peak under `settings` with `stages`
/// stages (see the header).
double activationsInFlight(const StepSettings& settings, int stages, int stage);

} // namespace shardscope
