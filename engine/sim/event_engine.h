#pragma once
// The event-driven core both simulators run (docs/DESIGN.md, Simulator). A line is one timeline: a
// device class (every device of it runs the same program) or a pipeline stage. Each line has a
// compute stream and the communication streams of comm_streams.h. A task starts when it heads its
// stream and its dependencies have ended; on an SPMD program a collective also waits until every
// line in its groups has reached it. Time runs from event to event at the rates the running tasks
// leave each other (a fluid model):
//   - compute runs at 1 / (1 + slowdown) while a communication task runs on its line
//     (DeviceSpec::overlapSlowdown);
//   - a collective pays its latency, then moves its bytes on every link level it uses
//     (CommModel::shape); a level's bandwidth is shared equally by the collectives moving bytes on
//     it at that moment, so transfers of different streams over one level take turns, and transfers
//     over different levels (tensor parallelism on NVLink, data parallelism on InfiniBand) do not.
// Examples: two all-gathers of 10 ms each on one InfiniBand level, started together on the gather and
// reduce streams, both end at 20 ms. A 10 ms GEMM beside a 5 ms collective, slowdown 0.189: the GEMM
// does 5 / 1.189 = 4.205 ms of its work while the collective runs and ends at 5 + 5.795 = 10.795 ms.
// With overlap off a line runs one task at a time in program order: nothing shares, nothing slows.

#include "engine/cost/collectives.h"
#include "engine/sim/simulator.h"
#include "engine/sim/step_program.h"
#include "engine/sim/timeline_clock.h"

#include <map>
#include <stop_token>
#include <vector>

namespace shardscope {

/// What the engine runs: a program on lines.
struct EngineSetup {
    const StepProgram* program = nullptr;
    std::vector<const CommModel*> comm;  ///< per line: collective costs on its devices
    std::vector<double> resident;        ///< per line: bytes held throughout (static + workspace)
    /// SPMD (unpipelined): every task runs on every line, and a collective on line l starts once the
    /// lines peers->at(axes)[l] have all reached it. Otherwise (pipelined) task t runs on line
    /// t.stage only.
    bool spmd = true;
    const std::map<AxisSet, std::vector<std::vector<int>>>* peers = nullptr;
    bool overlap = true;
    double slowdown = 0;                 ///< DeviceSpec::overlapSlowdown (ignored with overlap off)
    bool timelines = true;               ///< keep each task's event and the memory samples
    std::stop_token stop;
};

/// What one line did.
struct LineRun {
    DeviceTimeline timeline;             ///< events (unsorted), memory, step time, commBusy
    double computeBusy = 0;
    double peak = 0;
    LevelBytes levelBytes;
    StageSends sends;                    ///< pipelined: point-to-point bytes per device
};

/// The run of every line.
struct EngineRun {
    std::vector<LineRun> lines;
    bool cancelled = false;
};

/// Runs `setup`. Throws std::logic_error if tasks wait for each other forever (a bug, never input).
EngineRun runEngine(const EngineSetup& setup);

} // namespace shardscope
