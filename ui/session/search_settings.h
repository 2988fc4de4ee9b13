#pragma once
// The search bar's settings.

#include "engine/cluster/mesh.h"
#include "engine/cost/step_settings.h"
#include "engine/search/pipeline_candidates.h"
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
    std::optional<ScheduleChoice> schedule;      ///< pipelined meshes: nullopt: auto; else fixed
    AttentionKernel attention = AttentionKernel::Fused; ///< a fixed setting, never searched
    Precision precision = Precision::BF16;       ///< StepSettings::precision, fixed
    bool overlap = true;                         ///< StepSettings::overlap, fixed
    TpOverlap tpOverlap = TpOverlap::Off;        ///< StepSettings::tpOverlap, fixed
    LossKernel loss = LossKernel::Unfused;       ///< StepSettings::loss, fixed
    double bucketBytes = StepSettings{}.bucketBytes; ///< StepSettings::bucketBytes, fixed

    /// `step` with the fixed settings above (attention, precision, overlap, loss, buckets) in place of its own.
    StepSettings withFixed(StepSettings step) const {
        step.attention = attention;
        step.loss = loss;
        step.precision = precision;
        step.overlap = overlap;
        step.tpOverlap = tpOverlap;
        step.bucketBytes = bucketBytes;
        return step;
    }
    /// Takes the fixed settings from `step` (what a plan file was saved with); true when any changed.
    bool takeFixed(const StepSettings& step) {
        const SearchSettings before = *this;
        attention = step.attention;
        loss = step.loss;
        precision = step.precision;
        overlap = step.overlap;
        tpOverlap = step.tpOverlap;
        bucketBytes = step.bucketBytes;
        return !(before == *this);
    }

    bool operator==(const SearchSettings&) const = default;
};

} // namespace shardscope::ui
