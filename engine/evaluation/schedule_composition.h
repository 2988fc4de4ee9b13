#pragma once
// A pipelined step composed unit by unit as its schedule runs them (docs/DESIGN.md, Pipelining): every
// stage runs its units (a micro-batch's forward or backward through one model chunk) in the
// schedule's order (schedule_order.h); a unit starts once its stage is free and, for its compute,
// once the units it receives from have ended and their tensors have arrived (the send on the sender's
// pipeline stream, then the gather on arrival on the receiver's). Each unit lasts what its chunk's pass
// composed by the streams' rules lasts (stream_composition.h: the first micro-batch's forward with the
// once-per-step gathers, the last one's backward with the once-per-step reductions, steady in
// between); the wait for a pass's first gathers (its lead) runs while the stage idles before it.
// The step ends when every stage has run its units, its links have drained and its optimizer has
// run. With overlap off every pass runs serially and a sender waits for its own sends: the
// simulator's step exactly (engine/sim/pipeline_simulator.h).
// Example: P 2, m 2, 1F1B, every pass 1 s and free sends: stage 0 runs F0 F1 B0 B1, stage 1 F0 B0 F1
// B1; stage 1's F0 ends at 2 s and its B0 at 3 s, stage 0's B0 at 4 s (after stage 1's), stage 1's F1
// at 4 s and its B1 at 5 s, stage 0's B1 at 6 s: step 6 s = (m + P - 1) (F + B), the bubble formula's.

#include "engine/evaluation/evaluation.h"

namespace shardscope {

/// The step time of pipelined `plan` under `model`, its ops' reports `e.perOp` (with the stage
/// transfers attached). Assumes plan.pipeline is active.
double composeSchedule(const CostModel& model, const Plan& plan, const Evaluation& e);

} // namespace shardscope
