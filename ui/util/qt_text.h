#pragma once
// Conversions between the engine's std::string and Qt's QString (UTF-8 both ways).

#include "engine/util/units.h"

#include <QString>

#include <string>
#include <string_view>

namespace shardscope::ui {

/// `s` as a QString.
inline QString q(const std::string& s) { return QString::fromStdString(s); }
/// `s` as a QString.
inline QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
/// `s` (UTF-8) as a QString.
inline QString q(const char* s) { return QString::fromUtf8(s); }
/// Seconds formatted as the engine formats them ("5.773 s").
inline QString seconds(double s) { return q(formatSeconds(s)); }
/// Bytes formatted as the engine formats them ("1.50 GB").
inline QString bytes(double b) { return q(formatBytes(b)); }

} // namespace shardscope::ui
