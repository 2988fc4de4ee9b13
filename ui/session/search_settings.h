#pragma once
// The search bar's settings.

#include "engine/cost/step_settings.h"

#include <QString>

#include <optional>

namespace shardscope::ui {

/// What the next search runs with.
struct SearchSettings {
    QString algorithm = QStringLiteral("auto");  ///< auto, tapas, pase, brute
    QString mesh = QStringLiteral("auto");       ///< "auto" or axes such as "data=4,model=2"
    int batch = 0;                               ///< global batch; 0 keeps the model's
    std::optional<int> microbatches;             ///< nullopt: auto, the search chooses
    std::optional<Recompute> recompute;          ///< nullopt: auto
    std::optional<int> zeroStage;                ///< nullopt: auto; else 0-3 over the data axis

    bool operator==(const SearchSettings&) const = default;
};

} // namespace shardscope::ui
