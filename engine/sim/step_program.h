#pragma once
// The program every device runs for one training step (docs/DESIGN.md, Simulator): tasks on the
// compute stream and one communication stream per process group (comm_streams.h), in issue order,
// with the dependencies between them.
//
// Forward and backward per micro-batch; resharding, statistics and halo collectives (tensor stream)
// block the compute that reads their result. With overlap on, gradient synchronisation (reduce stream,
// bucketed) runs in the background and only the optimizer waits for it; parameter gathers (gather
// stream) run ahead of the compute that uses them as far as the reserved workspace holds them
// (gather_prefetch.h), ZeRO-1 and 2's during the first micro-batch's forward (Megatron-Core's
// --overlap-param-gather: the next step's forward); with tensor-parallel overlap
// (StepSettings::tpOverlap) the reshardings next to a linear layer run beside its GEMM. With overlap
// off every collective blocks, and ZeRO-1 and 2 gather after the optimizer.
//
// A pipelined plan has one program per stage, in the order its schedule runs the micro-batches
// through its chunks (schedule_order.h): a chunk's forward ends by sending the tensors that leave it
// (a send on the sender's communication stream), the receiving chunk's forward starts with a receive
// that waits for that send (and all-gathers a tensor sent in pieces); gradients go back the same way.
//
// Compute chains: without timelines (SimOptions::timelines), a compute task that waits for nothing but
// the compute task just issued, when nothing else waits for that one, runs as part of it: one task
// lasting both ops' work. The step is the same: the two run back to back on the compute stream either
// way, the first one's end starts nothing else, and compute runs at one rate throughout (the rate
// depends only on the communication beside it). A chain never both saves and frees activations, so
// the peak is the same too. Only the timeline would differ (one event per chain), which is why chains
// are off when timelines are kept, and off with tensor-parallel overlap, where a collective runs
// beside the compute before the last one. Example: a block's forward after its all-gather, qkv GEMM,
// attention, projection, runs as one task when only the projection's reduce-scatter waits on it;
// gpt3-175b's PTD-P step has 721 k tasks, 222 k with chains.

#include "engine/cost/comm_streams.h"
#include "engine/cost/cost_model.h"
#include "engine/plans/plan.h"

#include <string>
#include <vector>

namespace shardscope {

/// One timeline event of a simulated device.
struct SimEvent {
    Stream stream = Stream::Compute;
    OpId op;                       ///< invalid for the optimizer and gradient buckets
    std::string name;              ///< op name, "optimizer", "gradient bucket"
    Phase phase = Phase::Forward;
    bool collective = false;
    CollectiveKind kind = CollectiveKind::AllReduce; ///< when collective
    AxisSet axes = 0;
    double bytes = 0;
    double start = 0;
    double duration = 0;
    int microbatch = 0;
    int task = 0;                  ///< index of the task in the step program (the same on every device)
};

/// Simulation settings (the bucket size is the plan's, StepSettings::bucketBytes).
struct SimOptions {
    bool overlap = true;
    /// False when only the step time and memory are wanted (a search ranking its finalists): events
    /// are neither named nor kept, and simulate() runs compute chains as one task (compute_chains.h).
    bool timelines = true;
};

/// One collective of a communication task, repeated `times`.
struct CommPart {
    CollectiveKind kind = CollectiveKind::AllReduce;
    AxisSet axes = 0;
    double bytes = 0;
    int times = 1;
    double bucket = 0;             ///< CollectiveCost::bucket: priced by CommModel::coalescedTime
};

/// One task of the program.
struct SimTask {
    Stream stream = Stream::Compute;
    std::vector<int> deps;         ///< earlier tasks whose end it waits for
    SimEvent event;                ///< duration set for compute; communication is timed per device
    std::vector<CommPart> parts;   ///< what a communication task sends
    int stage = 0;                 ///< the pipeline stage that runs it (0 without pipelining)
    double allocate = 0;           ///< activation bytes saved when the task ends
    double release = 0;            ///< activation bytes freed when the task ends
};

/// The step program with the memory it holds throughout.
struct StepProgram {
    std::vector<SimTask> tasks;    ///< every stage's, each stage's in issue order
    int stages = 1;
    std::vector<double> staticBytes = {0}; ///< per stage: parameters, gradients, optimizer state (and
                                           ///< with pipelining one block's recompute working set)
    std::vector<double> workspace = {0};   ///< per stage: reserved for the largest transient buffer
};

/// Builds the step program of `plan`. Assumes plan.verify() is empty and `model` matches the plan.
StepProgram buildStepProgram(const CostModel& model, const Plan& plan, const SimOptions& options);

} // namespace shardscope
