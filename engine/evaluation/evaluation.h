#pragma once
// Whole-plan evaluation: the analytic step time and memory with every figure broken down per op.

#include "engine/cost/cost_model.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/pipeline/pipeline_report.h"
#include "engine/plans/plan.h"

#include <limits>
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
    double computeTime = 0;        ///< forward, backward and recompute, as fast as alone
    double forwardSlowdown = 0;    ///< of slowdownTime, the forward's (OpCost::forwardSlowdown)
    double backwardSlowdown = 0;   ///< the backward's
    double slowdownTime = 0;       ///< compute lost to communication beside it, as the search estimates it
    double commTime = 0;
    double exposedCommTime = 0;    ///< of commTime, what is not hidden behind compute
    double optimizerTime = 0;
    std::vector<CollectiveCost> collectives;
    MemoryTerms memory;
    double activationWorkspace = 0; ///< of memory.activations, OpCost::activationWorkspace
    double transient = 0;
    double prefetchRoom = 0;        ///< of transient, OpCost::prefetchRoom
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
    /// The analytic step: the per-op figures composed by the streams' rules (stream_composition.h) and
    /// the pipeline schedule; the simulator's step within a few percent (docs/DESIGN.md, Overlap).
    double stepTime = 0;
    /// The search's objective: what its dynamic programmes minimise, the per-op figures summed (each
    /// background collective hidden behind its own op's compute), and for a pipeline the schedule over
    /// those sums. Equal to stepTime with overlap off and no pipeline.
    double objective = 0;
    double computeTime = 0;        ///< compute, as fast as alone
    double slowdownTime = 0;       ///< compute lost to communication running beside it (DeviceSpec::overlapSlowdown)
    double commTime = 0;
    double exposedCommTime = 0;    ///< of commTime, what is not hidden behind compute (StepSettings::overlap)
    double optimizerTime = 0;
    double bubbleTime = 0;         ///< pipelined: the slowest stage's idle time (fill, drain, waiting)
    MemoryTerms memory;            ///< bytes per device (pipelined: of the stage with the highest peak)
    double buffers = 0;            ///< largest transient buffer
    double peakMemory = 0;
    double memoryCapacity = 0;
    bool feasible = true;
    /// Set when the evaluation was asked for within a cutoff (the best step that fits) and the plan
    /// cannot be preferred to it: its step's lower bound (schedule_bound.h) reached it, or the plan
    /// does not fit. stepTime is then that bound, not the composed step.
    bool stepIsBound = false;
    std::string overflow;          ///< when infeasible: what overflows, with the largest contributors
    double commBytesPerDevice = 0; ///< bytes each device sends per step
    std::vector<OpReport> perOp;   ///< indexed by OpId; an op's collectives include the resharding into it
    std::vector<EdgeReport> perEdge; ///< indexed like CostModel::edges()
    /// stepTime = computeTime + slowdownTime + exposedCommTime + optimizerTime (+ bubbleTime).
    /// With a pipe axis: the stages and the schedule. Then stepTime is the pipelined step and compute,
    /// slowdown, exposed communication and optimizer are the slowest stage's per step.
    PipelineReport pipeline;
};

/// What an evaluation fills: everything, or only what a score needs (no strategy texts, perEdge,
/// flopsPerStep, paramsTotal or overflow message).
enum class EvaluationDetail { Full, Score };
/// How the step time is composed from the per-op figures: by the streams' rules (the analytic step),
/// or as the search's objective (stepTime = objective: for the search's cut profiles and its tests).
enum class Composition { Streams, Objective };

/// Evaluates `plan` under `model`. Assumes plan.verify(model.graph()) is empty and the plan's mesh and
/// settings are those of `model`. With `folded`, when the plan gives every op of blocks 2.. the
/// strategy of its twin in block 1 (Plan::repeats), those ops and the edges into blocks 3.. are
/// priced once, not once per block; a plan whose blocks differ is priced op by op. Within a finite `cutoff` (a search's best step that
/// fits so far), a plan whose step's lower bound is at least `cutoff`, or that does not fit, is not
/// composed: see Evaluation::stepIsBound.
std::shared_ptr<const Evaluation> evaluate(const CostModel& model, const Plan& plan,
                                          const RepeatedBlocks* folded = nullptr,
                                          EvaluationDetail detail = EvaluationDetail::Full,
                                          Composition composition = Composition::Streams,
                                          double cutoff = std::numeric_limits<double>::infinity());

} // namespace shardscope
