#pragma once
// The time <-> x mapping of the timeline: plain arithmetic, tested on its own (docs/DESIGN.md, The window).

#include <vector>

namespace shardscope::ui {

/// Seconds `start` at x = 0, `secondsPerPixel` per pixel; x grows with time.
struct TimeAxis {
    double start = 0;
    double secondsPerPixel = 1e-6;

    /// The x of time `t`.
    double x(double t) const { return (t - start) / secondsPerPixel; }
    /// The time at `x`.
    double time(double x) const { return start + x * secondsPerPixel; }
    /// [t0, t1] across `width` pixels.
    static TimeAxis fit(double t0, double t1, double width);
    /// Zooms by `factor` (above 1 zooms in), keeping the time under `x` where it is.
    void zoomAround(double x, double factor);
    /// Shows times `dx` pixels later (earlier when negative).
    void pan(double dx);
    /// Keeps the view on [0, total] across `width` pixels: no wider than the whole, no narrower
    /// than 1 ns per pixel, and no further out than the ends allow.
    void clamp(double total, double width);
    /// Times of tick marks at least `minPixels` apart across `width` pixels, on a 1-2-5 grid; `step`
    /// gets the spacing in seconds.
    std::vector<double> ticks(double width, double minPixels, double& step) const;
};

} // namespace shardscope::ui
