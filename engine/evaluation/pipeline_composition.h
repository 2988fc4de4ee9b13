#pragma once
// Composing a pipelined plan's step (docs/DESIGN.md, Pipelining): per stage, one micro-batch through its
// chunks composed by the streams' rules (stream_composition.h) and its once-per-step work; the stages
// composed by the schedule, not summed: with m micro-batches, P stages and V' = V for the interleaved
// schedule (1 otherwise), step = m max_s t_s + (sum_s t_s - max_s t_s) / V' + max_s w_s. The slowest
// stage runs its m micro-batches back to back and the other stages' fill and drain frame it; GPipe
// frames its forward and its backward pass apart, each paced by its own slowest stage. Balanced stages
// give (m + (P-1)/V') t + w, a bubble of (P-1)/(m+P-1) of the pipelined part for GPipe and 1F1B and
// (P-1)/(Vm+P-1) interleaved; uneven stages are priced by the slowest's pace and the others' fill (the
// report says when they are uneven: balanced), and the simulator runs the schedule exactly. Example:
// P 4, m 8, 1F1B, t 1 s per stage: step 11 s, bubble 3/11.

#include "engine/evaluation/evaluation.h"

namespace shardscope {

/// Attaches the stage transfers to the reports: the forward ones to the producer, the backward ones
/// to the consumer. Assumes `e.perOp` is filled and plan.pipeline is active.
void addStageTransfers(const CostModel& model, const Plan& plan, Evaluation& e);

/// Fills e.pipeline from the per-op reports and replaces the step time, the objective, the time terms
/// (the slowest stage's), memory and feasibility (every stage must fit) by the pipeline's; stages are
/// composed as `composition` says, their per-micro-batch figures only with `detail` Full (a score
/// reads the step, memory and feasibility). Within a finite `cutoff` (the best step that fits) the
/// schedule is not composed when its lower bound reaches it or a stage does not fit
/// (Evaluation::stepIsBound). Assumes plan.pipeline is active and addStageTransfers() ran.
void composePipeline(const CostModel& model, const Plan& plan, Evaluation& e, Composition composition,
                     EvaluationDetail detail, double cutoff);

} // namespace shardscope
