#pragma once
// The step settings a search chooses together with the per-op strategies: ZeRO stage,
// recomputation and micro-batch count, each either open ("auto") or fixed by the user.

#include "engine/cluster/mesh.h"
#include "engine/cost/step_settings.h"

#include <optional>
#include <vector>

namespace shardscope {

/// Which step settings the search chooses itself; the others keep the request's values.
struct OpenSettings {
    bool zeroStage = false;     ///< 0-3 over the data axis
    bool recompute = false;     ///< none, selective, full
    bool microbatches = false;  ///< divisors of the per-replica batch (needs a GraphFamily)
    bool schedule = false;      ///< pipelined meshes: 1F1B or interleaved, and its virtual stages

    /// Every setting open: what `search` does when the user fixes none.
    static OpenSettings all() { return {true, true, true, true}; }
    bool operator==(const OpenSettings&) const = default;
};

/// The values one mesh's search tries, each list in the order that saves memory (and usually costs
/// time) increasingly: ZeRO 0 -> 3, recomputation none -> full, micro-batches ascending.
struct SettingsSpace {
    StepSettings base;                   ///< the optimizer and every fixed value
    std::vector<int> zeroStages;
    std::vector<Recompute> recomputes;
    std::vector<int> microbatches;

    /// The settings of one combination; ZeRO shards over `zeroAxes` when its stage is above 0.
    StepSettings at(int zeroStage, Recompute recompute, int microbatches, AxisSet zeroAxes) const;
    /// Number of combinations.
    std::size_t size() const { return zeroStages.size() * recomputes.size() * microbatches.size(); }
};

/// The space for one mesh: `fixed` where a setting is not open; micro-batch counts m with
/// globalBatch % m == 0 and (globalBatch / m) % dataDegree == 0, so each micro-batch still splits over
/// the data-parallel replicas (the fixed count alone when none does, or without a global batch).
SettingsSpace settingsSpace(const StepSettings& fixed, const OpenSettings& open, std::optional<int> globalBatch,
                            int dataDegree);

/// True when a plan's step time under setting `b` can be no lower than under `a`, for every
/// strategy valid under both: same ZeRO stage, at least as much recomputation, and a micro-batch count
/// that is a multiple of a's (each micro-batch's work splits into m_b / m_a smaller ones that pay at
/// least the same per-kernel and per-message floors). The search prunes dominated combinations.
bool slowerOrEqual(const StepSettings& a, const StepSettings& b);

} // namespace shardscope
