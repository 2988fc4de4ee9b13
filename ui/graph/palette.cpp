#include "palette.h"

#include <cmath>

namespace shardscope::ui {

QColor legendColor(int index, bool replicated) {
    if (replicated)
        return QColor(226, 226, 226);
    // Golden-ratio steps around the hue circle keep neighbouring entries apart.
    const double hue = std::fmod(0.08 + index * 0.618033988749895, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.38f, 0.97f);
}

} // namespace shardscope::ui
