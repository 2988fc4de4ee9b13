#pragma once
// Pricing a pipelined plan (DESIGN 2.4, Pipelining): every stage is the plan's ops on that stage's
// devices, priced per op and per edge by the cost model as any plan; the stages are composed by the
// schedule, not summed.
//
// Per stage s (0-based) with t_s its seconds per micro-batch (forward, backward, exposed
// communication, the sends to its neighbours) and w_s its once-per-step work (optimizer, exposed
// gradient synchronisation), m micro-batches, P stages and V' = V for the interleaved schedule, 1
// otherwise: step = (m + (P-1)/V') max_s t_s + max_s w_s. With balanced stages the bubble is
// (P-1)/V' max t of it, (P-1)/(m+P-1) of the pipelined part for GPipe and 1F1B and (P-1)/(Vm+P-1)
// interleaved. Uneven stages take the slowest stage's pace, which the report says (balanced); the
// simulator runs the schedule exactly. Activations held: GPipe m micro-batches per stage, 1F1B
// min(P-s, m), interleaved min(P-s, m) (1 + (P-1)/(P V)), less one block's recompute working set,
// which is live once. Example: P 4, m 8, 1F1B, t 1 s per stage: step 11 s, bubble 3/11; stage 0
// keeps 4 micro-batches of its activations, stage 3 one.

#include "engine/cost/evaluation.h"

namespace shardscope {

/// Adds a stage transfer (point-to-point over the pipe axis, once per micro-batch) for every tensor
/// crossing from one model chunk to another: the activation at the producer's sharding, forward,
/// attached to its producer; its gradient backward, attached to the consumer. Assumes `e.perOp` is
/// filled and plan.pipeline is active.
void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e);

/// Fills e.pipeline from the per-op reports and replaces the step time, the time terms (the
/// slowest stage's), memory and feasibility (every stage must fit) by the pipeline's. Assumes
/// plan.pipeline is active and addStageTransfers() ran.
void composePipeline(const CostModel& model, const Plan& plan, Evaluation& e);

/// The micro-batches of activations stage `stage` holds at its peak under `settings` with `stages`
/// stages (see the header).
double activationsInFlight(const StepSettings& settings, int stages, int stage);

} // namespace shardscope
