#pragma once
// The pipeline part of an evaluation (docs/DESIGN.md, Pipelining): per stage, the time of one
// micro-batch, the work done once per step and the memory with the micro-batches in flight; and the
// step composed from them by the schedule.

#include "engine/cost/cost_terms.h"
#include "engine/cost/step_settings.h"

#include <vector>

namespace shardscope {

/// One pipeline stage (the devices at one coordinate of the pipe axis).
struct StageReport {
    int stage = 0;
    std::vector<int> chunks;     ///< the model chunks it runs
    int ops = 0;
    double forward = 0;          ///< seconds per micro-batch of forward compute
    double backward = 0;         ///< seconds per micro-batch of backward compute, recomputation included
    double slowdown = 0;         ///< seconds per micro-batch the compute loses to communication beside it
    double comm = 0;             ///< seconds per micro-batch of exposed communication inside the stage
    double transfer = 0;         ///< seconds per micro-batch sending activations on and gradients back
    double forwardPass = 0;      ///< of perMicrobatch(), the forward pass's: compute, communication, sends
    double transferBytes = 0;    ///< bytes each device sends per micro-batch to its neighbour stages
    double stepWork = 0;         ///< seconds once per step: optimizer and exposed step-phase collectives
    double optimizer = 0;        ///< of stepWork, the optimizer
    double inFlight = 1;         ///< micro-batches of activations held at the peak (the schedule's)
    MemoryTerms memory;          ///< bytes per device, activations times inFlight (less the recompute workspace)
    double buffers = 0;
    double peakMemory = 0;
    bool feasible = true;

    /// Seconds of one micro-batch through the stage (every chunk of it), forward and backward.
    double perMicrobatch() const { return forward + backward + slowdown + comm + transfer; }
};

/// The whole pipeline.
struct PipelineReport {
    Schedule schedule = Schedule::OneFOneB;
    int virtualStages = 1;
    int microbatches = 1;
    std::vector<StageReport> stages; ///< empty when the plan is not pipelined
    std::vector<int> stageOfOp;      ///< per op: its stage
    int slowest = 0;                 ///< the stage whose micro-batch time sets the pace
    double bubbleFraction = 0;       ///< of the pipelined step, the slowest stage idle: fill over (m t + fill)
    bool balanced = true;            ///< every stage's micro-batch time within 1% of the slowest's

    /// True when the plan has more than one stage.
    bool active() const { return stages.size() > 1; }
};

} // namespace shardscope
