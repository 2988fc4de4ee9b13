#pragma once
// Lower bounds on a composed step that cost one pass over the per-op reports, for the search to skip
// composing steps that cannot win. A pass of a micro-batch lasts at least its ops' seconds on the
// compute stream (step_passes.h, computePath()): compute and blocking collectives; compute only slows
// beside communication, and gathers and reductions only add.
// Without a pipe axis the m micro-batches run one after another, then the optimizer:
//   step >= m sum_ops (F + B) + opt
// Pipelined, every schedule runs a stage's units (a micro-batch's forward or backward through one
// model chunk) one at a time, starts the stage with the forward of micro-batch 0 through its first
// chunk and ends it with the backward of the last micro-batch through that chunk (schedule_order.h),
// and chunk s is stage s's first. So for every stage s:
//   step >= sum_{c<s} F_c + m W_s + max(opt_s, sum_{c<s} B_c + opt_0)
// F_c, B_c: chunk c's forward and backward passes; W_s: the passes of all of stage s's chunks; opt:
// a stage's optimizer. Worked example: P 2, m 2, 1F1B, every pass 1 s, no optimizer: stage 1 gives
// 1 + 2 x 2 + 1 = 6 s, the composed step (schedule_composition.h's example).

#include "engine/evaluation/evaluation.h"

namespace shardscope {

/// A lower bound on the step of `plan` under `model` composed by the streams' rules (its evaluation's
/// per-op reports `e.perOp`, with the stage transfers attached when pipelined).
double stepLowerBound(const CostModel& model, const Plan& plan, const Evaluation& e);

/// Pipelined: a lower bound on the step of every cut of `plan`'s model over its stages: the busiest
/// stage runs at least the average of the passes, m x sum_ops (F + B) / P.
double anyCutLowerBound(const CostModel& model, const Plan& plan, const Evaluation& e);

} // namespace shardscope
