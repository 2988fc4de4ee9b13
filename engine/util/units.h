#pragma once
// Human-readable formatting of bytes, seconds and FLOPs for tables and messages.

#include <string>

namespace shardscope {

/// Formats `bytes` with a binary-free SI unit: "1.50 GB", "312 MB".
std::string formatBytes(double bytes);
/// Formats `seconds` as "12.3 ms", "4.56 s", "7.8 us".
std::string formatSeconds(double seconds);
/// Formats a count such as FLOPs or parameters: "1.75e+11" style with SI suffix ("175 G").
std::string formatCount(double count);

} // namespace shardscope
