#pragma once
// A plan's step time and peak memory without the per-op breakdown of a full evaluation: what the
// search needs to rank hundreds of baseline plans.

#include "engine/cost/cost_model.h"
#include "engine/plans/plan.h"
#include "engine/ir/repeated_blocks.h"

#include <limits>

namespace shardscope {

/// A plan's figures in the terms the search ranks by.
struct Score {
    double stepTime = std::numeric_limits<double>::infinity();
    double peakMemory = std::numeric_limits<double>::infinity();
    bool feasible = false;
    /// Set when the step was not composed since the plan cannot be preferred to the cutoff it was
    /// scored within (Evaluation::stepIsBound): stepTime only bounds it from below.
    bool bounded = false;
};

/// True when `a` should be preferred to `b`: it fits and `b` does not; both fit and `a` is faster;
/// neither fits and `a` needs less memory (it is closer to fitting).
bool preferred(const Score& a, const Score& b);

/// Step time and peak memory of `plan` under `model`, equal to evaluate()'s (a pipelined plan, and any
/// plan with overlap, is evaluated in full: its step is composed, not summed). With `folded`, when the
/// plan repeats block 1 in blocks 2.. (Plan::repeats; baselinePlan with sameAs does), those blocks
/// cost what block 1 costs and only blocks 0-2 and the ops around them are priced; otherwise every op.
/// Within a finite `cutoff` (the best step that fits), a step whose lower bound reaches it, or a plan
/// that does not fit, is not composed (Score::bounded).
Score scorePlan(const CostModel& model, const Plan& plan, const RepeatedBlocks* folded,
                double cutoff = std::numeric_limits<double>::infinity());

} // namespace shardscope
