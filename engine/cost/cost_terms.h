#pragma once
// The broken-down terms of a cost (docs/DESIGN.md, Costs): compute, each collective, memory.

#include "engine/cost/collectives.h"
#include "engine/ir/graph.h"
#include "engine/util/ids.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

/// When a collective runs: in a micro-batch's forward or backward, or once per optimizer step.
enum class Phase { Forward, Backward, Step };
/// Why a collective runs. StageTransfer: an activation sent to the next pipeline stage, or its
/// gradient sent back (point-to-point over the pipe axis).
enum class CommPurpose { Resharding, Statistics, Halo, GradientSync, ParameterGather, StageTransfer };

/// "forward", "backward", "step".
std::string_view phaseName(Phase p);
/// "resharding", "statistics", "halo", "gradient-sync", "parameter-gather", "stage-transfer".
std::string_view purposeName(CommPurpose p);

/// One collective of a plan: `time` is one occurrence; it runs `count` times per step.
struct CollectiveCost {
    CollectiveKind kind = CollectiveKind::AllReduce;
    AxisSet axes = 0;
    double bytes = 0;       ///< buffer size as collectives.h defines it
    double time = 0;        ///< seconds per occurrence
    double latency = 0;     ///< of time, the seconds no concurrent transfer slows (CommShape::latency)
    double hidden = 0;      ///< of those, seconds run behind compute (StepSettings::overlap, tpOverlap)
    double bytesSent = 0;   ///< bytes each device sends per occurrence
    double bucket = 0;      ///< bytes of the bucket it is coalesced into (CommModel::coalescedTime); 0 alone
    int count = 1;          ///< occurrences per step
    Phase phase = Phase::Forward;
    CommPurpose purpose = CommPurpose::Resharding;
    TensorId tensor;        ///< the tensor moved

    /// Seconds per step.
    double totalTime() const { return time * count; }
    /// Seconds per step the step waits for: totalTime() less what runs behind compute.
    double exposedTime() const { return (time - hidden) * count; }
};

/// Bytes per device held at the turn from forward to backward.
struct MemoryTerms {
    double parameters = 0;
    double gradients = 0;
    double optimizer = 0;
    double activations = 0;

    /// Sum of the four terms.
    double sum() const { return parameters + gradients + optimizer + activations; }
    /// Adds `o` term by term.
    MemoryTerms& operator+=(const MemoryTerms& o) {
        parameters += o.parameters;
        gradients += o.gradients;
        optimizer += o.optimizer;
        activations += o.activations;
        return *this;
    }
};

/// Cost of one op under one strategy, per step (micro-batch repetitions included).
struct OpCost {
    double forward = 0;     ///< compute seconds
    double backward = 0;
    double recompute = 0;   ///< forward recomputed during the backward
    /// The seconds the forward and the backward compute lose to communication running beside them
    /// (DeviceSpec::overlapSlowdown), on top of forward and backward: the simulator runs the kernels'
    /// own seconds and slows them itself.
    double forwardSlowdown = 0;
    double backwardSlowdown = 0;
    double optimizer = 0;   ///< update of the parameters this op owns
    std::vector<CollectiveCost> collectives;
    MemoryTerms memory;
    double transient = 0;   ///< largest temporary buffer while the op runs
    /// Of transient, the room kept for parameter gathers prefetched while the op runs (ZeRO-3 with
    /// overlap: as much as its own gathered weight).
    double prefetchRoom = 0;
    /// Of memory.activations, the share of one repeated block's recompute working set (full
    /// recomputation): live once per device however many micro-batches a pipeline stage holds.
    double activationWorkspace = 0;

    /// Compute seconds (forward, backward, recompute), as fast as without communication beside them.
    double computeTime() const { return forward + backward + recompute; }
    /// Compute seconds lost to communication beside it.
    double slowdownTime() const { return forwardSlowdown + backwardSlowdown; }
    /// Communication seconds of the op's own collectives.
    double commTime() const;
    /// Of commTime(), the seconds not hidden behind compute.
    double exposedCommTime() const;
    /// Every second the op adds to the step.
    double totalTime() const { return computeTime() + slowdownTime() + exposedCommTime() + optimizer; }
};

/// Cost of one edge (resharding between producer and consumer), per step.
/// Seconds per step of one tensor's resharding, and the all-gather steps' share of them (a kept
/// tensor gathers again in the backward: CostModel::edgeTimes).
struct ReshardTime {
    double seconds = 0;
    double gathers = 0;
    bool operator==(const ReshardTime&) const = default;
};

struct EdgeCost {
    std::vector<CollectiveCost> collectives;

    /// Seconds per step the step waits for (exposed: tensor-parallel overlap hides some).
    double time() const;
};

/// A data dependency between two ops: `tensor` flows from `from` into input `toInput` of `to`.
/// A parameter shared by two ops (tied embeddings) gives an edge from its owner, `parameterShare`.
struct Edge {
    OpId from;
    OpId to;
    TensorId tensor;
    std::size_t fromSlot = 0;  ///< output index in `from`, or input index for a parameter share
    std::size_t toInput = 0;
    bool parameterShare = false;
};

/// Every edge of `graph`, ordered by consumer in topological order. Assumes the graph is finalized.
std::vector<Edge> graphEdges(const Graph& graph);

} // namespace shardscope
