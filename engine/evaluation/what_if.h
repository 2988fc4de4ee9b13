#pragma once
// What-if: the step time and peak memory of a plan if one op took another strategy, for every
// strategy the op has. The inspector lists these so the user can see what an override would buy.

#include "engine/evaluation/evaluation.h"

#include <string>
#include <vector>

namespace shardscope {

/// One alternative strategy of an op and the plan's figures with it.
struct WhatIf {
    OpStrategy strategy;
    std::string text;              ///< "data:b model:f", or "replicated"
    double stepTime = 0;           ///< the search's objective for the plan with this strategy (Evaluation::objective)
    double peakMemory = 0;
    bool feasible = true;
    bool current = false;          ///< the plan's own strategy for the op
};

/// Every valid strategy of op `o` (in enumerateStrategies() order), each priced by changing only
/// the op's own cost and its edges in the search's objective. Assumes `evaluation` is evaluate(model, plan).
std::vector<WhatIf> whatIf(const CostModel& model, const Plan& plan, const Evaluation& evaluation, OpId o);

} // namespace shardscope
