#pragma once
// The one-clock walk (docs/DESIGN.md, Overlap): on every plan the benchmark searches return and on every
// registry baseline on their meshes, with overlap on and off, the analytic step (what the search
// minimises) against the simulated step (what the user sees).

#include "engine/cost/step_settings.h"

#include <functional>
#include <string>
#include <vector>

namespace shardscope::bench {

/// One plan's two clocks.
struct ClockRow {
    std::string scenario;     ///< "gpt3-175b, dgx-h100 x64, B 1536"
    std::string plan;         ///< "search" or the baseline spec
    std::string mesh;
    bool overlap = true;
    TpOverlap tpOverlap = TpOverlap::Off; ///< StepSettings::tpOverlap of the row
    double analytic = 0;      ///< evaluate()'s step time
    double simulated = 0;     ///< simulate()'s step time
    double chained = 0;       ///< simulate()'s step time without timelines (compute chains, step_program.h)
    double simulatedPeak = 0; ///< simulate()'s peak memory
    double chainedPeak = 0;   ///< the same without timelines
    double lowerBound = 0;    ///< stepLowerBound(): what the search prunes with, at most analytic

    /// |analytic - simulated| / simulated.
    double disagreement() const;
    /// "off", "on", or "on+tp" (tensor-parallel overlap full as well).
    std::string overlapText() const;
};

/// Searches every plan-quality scenario and the speed suite's searches (one thread each), then prices
/// each returned plan and every registry baseline on its mesh and settings both ways, overlap on and
/// off. `log` is told each scenario as it starts.
std::vector<ClockRow> oneClockWalk(const std::function<void(const std::string&)>& log);

} // namespace shardscope::bench
