#pragma once
// Pricing a pipelined plan (docs/DESIGN.md, Pipelining): every stage is the plan's ops on that stage's
// devices, priced per op and per edge by the cost model as any plan; the stages are composed by the
// schedule, not summed.
//
// Per stage s (0-based) with t_s its seconds per micro-batch (forward, backward, exposed
// communication, the sends to its neighbours) and w_s its once-per-step work (optimizer, exposed
// gradient synchronisation), m micro-batches, P stages and V' = V for the interleaved schedule, 1
// otherwise: step = m max_s t_s + (sum_s t_s - max_s t_s) / V' + max_s w_s: the slowest stage runs its
// m micro-batches back to back and the other stages' fill and drain frame it (one chunk's time each,
// so 1/V' of the stage); GPipe frames its forward and its backward pass apart that way, each paced by
// its own slowest stage. Balanced stages give (m + (P-1)/V') t + w, a bubble of (P-1)/(m+P-1) of the
// pipelined part for GPipe and 1F1B and (P-1)/(Vm+P-1) interleaved; uneven stages are priced by the
// slowest's pace and the others' fill (the report says when they are uneven: balanced), and the
// simulator runs the schedule exactly. Activations held: GPipe m micro-batches per stage, 1F1B
// min(P-s, m), interleaved min(2 (P-s-1) + (V-1) P + 1, V m) chunks of 1/V of the stage (stage 0:
// P (1 + (P-1)/(P V)) micro-batches), less one block's recompute working set, which is live once. Example: P 4, m 8, 1F1B, t 1 s per stage: step 11 s, bubble 3/11; stage 0
// keeps 4 micro-batches of its activations, stage 3 one.

#include "engine/cost/evaluation.h"

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

/// Attaches the stage transfers to the reports: the forward ones to the producer, the backward ones
/// to the consumer. Assumes `e.perOp` is filled and plan.pipeline is active.
void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e);

/// Fills e.pipeline from the per-op reports and replaces the step time, the time terms (the
/// slowest stage's), memory and feasibility (every stage must fit) by the pipeline's. Assumes
/// plan.pipeline is active and addStageTransfers() ran.
void composePipeline(const CostModel& model, const Plan& plan, Evaluation& e);

/// The micro-batches of activations stage `stage` holds at its peak under `settings` with `stages`
/// stages (see the header).
double activationsInFlight(const StepSettings& settings, int stages, int stage);

} // namespace shardscope
