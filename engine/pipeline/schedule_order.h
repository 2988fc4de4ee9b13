#pragma once
// The order in which one pipeline stage runs its micro-batches' forward and backward passes
// (docs/DESIGN.md, Pipelining), as Megatron-LM's schedules issue them.
//
// GPipe: every forward, then every backward. 1F1B: stage s (0-based) of P runs min(P-s-1, m)
// forwards to fill the pipeline, then alternates one forward and one backward, then drains the
// backwards; it holds at most min(P-s, m) micro-batches. Interleaved (V chunks per stage, m a
// multiple of P): forward k runs local chunk (k mod PV) / P of micro-batch (k / PV) P + k mod P,
// backward k the chunks in reverse; (P-s-1) 2 + (V-1) P forwards fill the pipeline. Example, P 2,
// m 3, 1F1B: stage 0 runs F0 F1 B0 F2 B1 B2, stage 1 runs F0 B0 F1 B1 F2 B2.

#include "engine/cost/step_settings.h"

#include <vector>

namespace shardscope {

/// One pass of one micro-batch through one model chunk.
struct PipelineUnit {
    bool forward = true;
    int chunk = 0;       ///< global model chunk: local chunk v of stage s is v P + s
    int microbatch = 0;

    bool operator==(const PipelineUnit&) const = default;
};

/// The units stage `stage` of `stages` runs, in order, for `settings` (schedule, micro-batches,
/// virtual stages). Assumes the interleaved schedule has microbatches a multiple of stages.
std::vector<PipelineUnit> stageOrder(const StepSettings& settings, int stages, int stage);

} // namespace shardscope
