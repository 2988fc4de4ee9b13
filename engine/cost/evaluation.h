#pragma once
// Whole-plan evaluation: the analytic step time and memory with every figure broken down per op.

#include "engine/cost/cost_model.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/pipeline/pipeline_report.h"
#include "engine/plans/plan.h"

#include <memory>
#include <string>
#include <vector>

namespace shardscope {

/// One op's share of the step: its own costs plus the resharding into it.
struct OpReport {
    OpId op;
    std::string strategy;          ///< "data:b model:f"
    double forwardTime = 0;        ///< of computeTime, the forward (per step)
    double backwardTime = 0;       ///< the backward
    double recomputeTime = 0;      ///< the forward run again in the backward
    double computeTime = 0;
    double commTime = 0;
    double exposedCommTime = 0;    ///< of commTime, what is not hidden behind compute
    double optimizerTime = 0;
    std::vector<CollectiveCost> collectives;
    MemoryTerms memory;
    double activationWorkspace = 0; ///< of memory.activations, OpCost::activationWorkspace
    double transient = 0;
};

/// One edge's resharding (docs/DESIGN.md, Sharding and resharding): the collectives between its producer and consumer, per step.
struct EdgeReport {
    OpId from;
    OpId to;
    TensorId tensor;
    std::vector<CollectiveCost> collectives;
    double time = 0;               ///< seconds per step, exposed
    double bytesSent = 0;          ///< bytes each device sends per step
};

/// The analytic cost of a plan (docs/DESIGN.md, Costs). Immutable once built; share as shared_ptr<const>.
struct Evaluation {
    std::string planName;
    Mesh mesh;
    int devices = 0;
    double paramsTotal = 0;
    double flopsPerStep = 0;       ///< model FLOPs (forward + backward) of the whole global batch
    double stepTime = 0;
    double computeTime = 0;
    double commTime = 0;
    double exposedCommTime = 0;    ///< of commTime, what is not hidden behind compute (StepSettings::overlap)
    double optimizerTime = 0;
    double bubbleTime = 0;         ///< pipelined: the slowest stage's idle time (fill, drain, waiting)
    MemoryTerms memory;            ///< bytes per device (pipelined: of the stage with the highest peak)
    double buffers = 0;            ///< largest transient buffer
    double peakMemory = 0;
    double memoryCapacity = 0;
    bool feasible = true;
    std::string overflow;          ///< when infeasible: what overflows, with the largest contributors
    double commBytesPerDevice = 0; ///< bytes each device sends per step
    std::vector<OpReport> perOp;   ///< indexed by OpId; an op's collectives include the resharding into it
    std::vector<EdgeReport> perEdge; ///< indexed like CostModel::edges()
    /// With a pipe axis: the stages and the schedule. Then stepTime is the pipelined step,
    /// compute, exposed communication and optimizer are the slowest stage's per step and
    /// stepTime = computeTime + exposedCommTime + optimizerTime + bubbleTime.
    PipelineReport pipeline;
};

/// What an evaluation fills: everything, or only what a score needs (no strategy texts, perEdge or
/// flopsPerStep).
enum class EvaluationDetail { Full, Score };

/// Evaluates `plan` under `model`. Assumes plan.verify(model.graph()) is empty and the plan's mesh and
/// settings are those of `model`. With `folded`, the plan must give every op of blocks 2.. the
/// strategy of its twin in block 1 (searches' folded plans do): those ops and the edges into blocks
/// 3.. are then priced once, not once per block.
std::shared_ptr<const Evaluation> evaluate(const CostModel& model, const Plan& plan,
                                          const RepeatedBlocks* folded = nullptr,
                                          EvaluationDetail detail = EvaluationDetail::Full);

} // namespace shardscope
