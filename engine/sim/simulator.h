#pragma once
// The step simulator (docs/DESIGN.md, Simulator): runs the step program (step_program.h) event by event on every
// device class (device_classes.h), a collective starting when every participant is ready.
//
// Devices of one class have the same timeline, so each class is simulated once and its timeline
// stands for all its members; timeline(device) expands it on demand. With overlap off every task
// waits for the one before it and the step time equals the analytic step time. With overlap on,
// bucketed gradient synchronisation runs behind the backward and ZeRO-3 gathers are prefetched.

#include "engine/cost/cost_model.h"
#include "engine/plans/plan.h"
#include "engine/sim/link_traffic.h"
#include "engine/sim/step_program.h"

#include <memory>
#include <stop_token>
#include <vector>

namespace shardscope {

/// Memory in use at a moment.
struct MemorySample {
    double time = 0;
    double bytes = 0;
};

/// The timeline shared by the devices of one class.
struct DeviceTimeline {
    std::vector<int> devices;          ///< members, ascending
    std::vector<SimEvent> events;      ///< ordered by start
    std::vector<MemorySample> memory;  ///< memory in use after each change
    double stepTime = 0;
    double commBusy = 0;
    double peakMemoryTime = 0;         ///< first moment at the peak
};

/// The simulated step. Immutable once built; share as shared_ptr<const>.
struct SimResult {
    std::vector<DeviceTimeline> classes;   ///< class 0 holds device 0
    std::vector<int> classOfDevice;
    double stepTime = 0;                   ///< the slowest class's
    double computeBusy = 0;                ///< the same on every device
    double commBusy = 0;                   ///< the busiest class's
    double exposedComm = 0;                ///< step time not covered by compute
    double peakMemory = 0;                 ///< the same on every device
    double peakMemoryTime = 0;             ///< on device 0
    std::vector<LevelTraffic> traffic;
    int devices = 0;
    bool cancelled = false;                ///< stopped early: the figures are incomplete

    /// The timeline of `device`.
    const DeviceTimeline& timeline(int device) const {
        return classes[static_cast<std::size_t>(classOfDevice[static_cast<std::size_t>(device)])];
    }
    /// Events simulated (over the classes, not expanded to devices).
    std::size_t eventCount() const;
};

/// Simulates one step of `plan`. Assumes plan.verify() is empty and `model` matches the plan.
/// A stop request ends the run early with `cancelled` set.
std::shared_ptr<const SimResult> simulate(const CostModel& model, const Plan& plan, const SimOptions& options,
                                          std::stop_token stop = {});

} // namespace shardscope
