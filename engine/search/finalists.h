#pragma once
// The search's last step (docs/DESIGN.md, Search): the best plans of the searched meshes, ranked by
// their analytic step (the streams' composition), are simulated, and the one the simulator runs
// fastest is the answer. The analytic step agrees with the simulated one within 3% on the benchmark
// plans (`shardscope-cli bench --suite clock`), so a plan more than twice that slower analytically
// cannot be faster simulated: only those within kFinalistMargin of the best are simulated, at most
// kFinalists of them, and of those only the ones whose analytic step is below (1 + kClockAgreement)
// times the fastest simulated so far (the others' simulated steps cannot be below it). A baseline
// that is the same plan as a finalist is simulated once.

#include "engine/search/mesh_search.h"
#include "engine/sim/simulator.h"

#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

namespace shardscope {

/// How far above the best analytic step a finalist may be.
constexpr double kFinalistMargin = 0.06;
/// The agreement the analytic step keeps with the simulated one, |analytic - simulated| / simulated,
/// on every plan `tst_one_clock` walks (the "one clock" bound; the worst measured is 1.5%).
constexpr double kClockAgreement = 0.03;
/// How many finalists are simulated at most.
constexpr std::size_t kFinalists = 3;

/// A finalist and its simulated step.
struct SimulatedFinalist {
    const CandidatePlan* plan = nullptr;            ///< one of the candidates given, or the baseline
    std::shared_ptr<const SimResult> simulation;    ///< its step, without timelines
    int simulated = 0;                              ///< finalists simulated
};

/// Among `candidates` (each mesh's best plan), the finalists within kFinalistMargin of the best by
/// preferred() (fitting first, then the analytic step), each simulated, and `baseline` (the best named
/// baseline, may be null) simulated too when it fits as the best does: the answer is then never slower,
/// simulated, than it. Returns the fastest simulated. Nothing when `candidates` is empty or the stop
/// token fires.
std::optional<SimulatedFinalist> fastestSimulated(const std::vector<const CandidatePlan*>& candidates,
                                                  const CandidatePlan* baseline,
                                                  const std::shared_ptr<const Cluster>& cluster, std::stop_token stop);

} // namespace shardscope
