#pragma once
// The search bar's settings.

#include "engine/cost/step_settings.h"

#include <QString>

namespace shardscope::ui {

/// What the next search runs with.
struct SearchSettings {
    QString algorithm = QStringLiteral("auto");  ///< auto, tapas, pase, brute
    QString mesh = QStringLiteral("auto");       ///< "auto" or axes such as "data=4,model=2"
    int batch = 0;                               ///< global batch; 0 keeps the model's
    int microbatches = 1;
    Recompute recompute = Recompute::None;
    int zeroStage = 0;                           ///< 0: added by the search only when nothing fits

    bool operator==(const SearchSettings&) const = default;
};

} // namespace shardscope::ui
