#pragma once
// Running a pipelined step program (step_program.h): one timeline per stage, each stage's tasks in
// its schedule's order on its compute and communication streams, a receive waiting for the other
// stage's send. Stages differ, so they are simulated one class each; within a stage every device runs
// the same program (the stage's groups are assumed to nest into the link levels, as they do when the
// stage's devices fill whole nodes or divide one). Events are processed as their dependencies
// resolve, not in one pass, since gradients flow back from later stages to earlier ones.

#include "engine/cost/cost_model.h"
#include "engine/sim/simulator.h"
#include "engine/sim/step_program.h"

#include <memory>
#include <stop_token>

namespace shardscope {

/// Simulates `program` (built with stages > 1) on `model`'s cluster and mesh. Throws std::logic_error
/// if the program's waits cannot all be met (a schedule that deadlocks: a bug, never user input).
std::shared_ptr<const SimResult> simulatePipeline(const CostModel& model, const StepProgram& program,
                                                  const SimOptions& options, std::stop_token stop);

} // namespace shardscope
