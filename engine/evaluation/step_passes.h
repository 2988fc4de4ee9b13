#pragma once
// One micro-batch's passes as the stream composition reads them (stream_composition.h), from the per-op
// reports of an evaluation, in the order the step program issues them (engine/sim/step_program.h):
// per op, the resharding into it and its halos before its compute and its statistics after it (tensor
// stream, blocking); its parameter gathers (gather stream) and gradient reductions (reduce stream),
// each on the link level of its group.

#include "engine/evaluation/evaluation.h"
#include "engine/evaluation/stream_composition.h"

#include <vector>

namespace shardscope {

/// The passes over `order` (ops in forward order; a pipeline stage's, or every op) of the reports
/// `perOp` (indexed by OpId; their collectives include the resharding into the op) under `model`.
/// Stage transfers are left out (the pipeline composition prices them).
StepPasses stepPasses(const CostModel& model, const std::vector<OpReport>& perOp, const std::vector<OpId>& order);

/// One op's seconds per micro-batch on the compute stream as stepPasses() lays them out: its forward
/// and its backward (recomputation included), each with its blocking collectives.
struct ComputePath {
    double forward = 0, backward = 0;
};

/// `r`'s compute-stream seconds per micro-batch of `microbatches` (ComputePath).
ComputePath computePath(const OpReport& r, double microbatches);

} // namespace shardscope
