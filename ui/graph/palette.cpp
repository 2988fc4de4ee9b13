#include "palette.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace shardscope::ui {

QColor legendColor(int index, bool replicated) {
    if (replicated)
        return QColor(226, 226, 226);
    // Golden-ratio steps around the hue circle keep neighbouring entries apart.
    const double hue = std::fmod(0.08 + index * 0.618033988749895, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.38f, 0.97f);
}

namespace {
struct KindLook {
    const char* shortName;
    QRgb color;
};
// Compute in cool colours, collectives in warm ones (timeline_data.h SpanKind order, then CollectiveKind).
constexpr KindLook kKinds[] = {{"fwd", 0x5b8ff9}, {"bwd", 0x4fc3a1}, {"opt", 0xf6bd16}, {"AR", 0xe8684a},
                               {"AG", 0x9270ca},  {"RS", 0xff9d4d},  {"A2A", 0xc2185b}, {"SR", 0x8d6e63}};
} // namespace

QColor spanColor(int kind) {
    return QColor(kKinds[static_cast<std::size_t>(std::clamp(kind, 0, spanKindCount() - 1))].color);
}

QString spanKindShortName(int kind) {
    return QString::fromLatin1(kKinds[static_cast<std::size_t>(std::clamp(kind, 0, spanKindCount() - 1))].shortName);
}

int spanKindCount() { return static_cast<int>(std::size(kKinds)); }

QColor heatColor(double t) {
    t = std::clamp(t, 0.0, 1.0);
    // Three stops: (255,236,160) -> (245,130,40) -> (140,10,20).
    const double stops[3][3] = {{255, 236, 160}, {245, 130, 40}, {140, 10, 20}};
    const int i = t < 0.5 ? 0 : 1;
    const double u = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
    auto mix = [&](int c) { return static_cast<int>(stops[i][c] + u * (stops[i + 1][c] - stops[i][c])); };
    return QColor(mix(0), mix(1), mix(2));
}

QColor groupColor(int index) {
    const double hue = std::fmod(0.55 + index * 0.618033988749895, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.45f, 0.95f);
}

QColor stageColor(int stage) {
    const double hue = std::fmod(0.02 + stage * 0.381966011250105, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.75f, 0.80f);
}

} // namespace shardscope::ui
