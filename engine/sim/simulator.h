#pragma once
// The step simulator (DESIGN 2.7): the task graph of one training step on a device, a compute
// stream and a communication stream, run event by event.
//
// Every device of a plan runs the same SPMD program under the analytic model, so one device class
// is simulated and its timeline stands for every device. With overlap off every task waits for the
// one before it, on either stream, and the step time equals the analytic step time. With overlap
// on, gradient synchronisation is bucketed and runs on the communication stream behind the
// backward; resharding collectives still block the op that reads their result.

#include "engine/cost/cost_model.h"
#include "engine/plans/plan.h"
#include "engine/sim/link_traffic.h"

#include <memory>
#include <string>
#include <vector>

namespace shardscope {

enum class Stream { Compute, Comm };

/// One timeline event of the simulated device.
struct SimEvent {
    Stream stream = Stream::Compute;
    OpId op;                       ///< invalid for the optimizer and gradient buckets
    std::string name;              ///< op name, "optimizer", "gradient bucket 3"
    Phase phase = Phase::Forward;
    bool collective = false;
    CollectiveKind kind = CollectiveKind::AllReduce; ///< when collective
    AxisSet axes = 0;
    double bytes = 0;
    double start = 0;
    double duration = 0;
    int microbatch = 0;
};

/// Memory in use at a moment.
struct MemorySample {
    double time = 0;
    double bytes = 0;
};

/// Simulation settings.
struct SimOptions {
    bool overlap = true;
    double bucketBytes = 25e6;     ///< gradient bucket size (PyTorch DDP's default 25 MB)
};

/// The simulated step. Immutable once built; share as shared_ptr<const>.
struct SimResult {
    std::vector<SimEvent> events;  ///< ordered by start
    double stepTime = 0;
    double computeBusy = 0;
    double commBusy = 0;
    double exposedComm = 0;        ///< time the compute stream waits for communication or idles
    std::vector<MemorySample> memory;
    double peakMemory = 0;
    double peakMemoryTime = 0;
    std::vector<LevelTraffic> traffic;
    int devices = 0;
};

/// Simulates one step of `plan`. Assumes plan.verify() is empty and `model` matches the plan.
std::shared_ptr<const SimResult> simulate(const CostModel& model, const Plan& plan, const SimOptions& options);

} // namespace shardscope
