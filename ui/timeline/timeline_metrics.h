#pragma once
// The timeline's fixed sizes in pixels, shared by its drawing and its hit testing.

namespace shardscope::ui {

inline constexpr double kGutter = 128;   // lane labels
inline constexpr double kRuler = 24;     // time axis
inline constexpr double kMemory = 92;    // memory strip
inline constexpr double kLane = 15;      // one lane
inline constexpr double kHeader = 17;    // a node's header row
/// Scroll bars count pixels in int: keep the whole step under this many pixels.
inline constexpr double kMaxPixels = 1.5e9;

} // namespace shardscope::ui
