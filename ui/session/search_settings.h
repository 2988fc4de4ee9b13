#pragma once
// The search bar's settings.

#include "engine/cluster/mesh.h"
#include "engine/cost/step_settings.h"
#include "engine/search/solver.h"

#include <optional>

namespace shardscope::ui {

/// What the next search runs with.
struct SearchSettings {
    SearchAlgorithm algorithm = SearchAlgorithm::Auto;
    std::optional<Mesh> mesh;                    ///< nullopt: every candidate mesh ("auto")
    int batch = 0;                               ///< global batch; 0 keeps the model's
    std::optional<int> microbatches;             ///< nullopt: auto, the search chooses
    std::optional<Recompute> recompute;          ///< nullopt: auto
    std::optional<int> zeroStage;                ///< nullopt: auto; else 0-3 over the data axis
    AttentionKernel attention = AttentionKernel::Fused; ///< a fixed setting, never searched
    bool overlap = true;                         ///< StepSettings::overlap, fixed
    TpOverlap tpOverlap = TpOverlap::Off;        ///< StepSettings::tpOverlap, fixed

    bool operator==(const SearchSettings&) const = default;
};

} // namespace shardscope::ui
