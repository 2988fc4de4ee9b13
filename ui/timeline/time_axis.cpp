#include "time_axis.h"

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

TimeAxis TimeAxis::fit(double t0, double t1, double width) {
    TimeAxis a;
    a.start = t0;
    a.secondsPerPixel = std::max(t1 - t0, 1e-12) / std::max(width, 1.0);
    return a;
}

void TimeAxis::zoomAround(double x, double factor) {
    const double t = time(x);
    secondsPerPixel /= factor;
    start = t - x * secondsPerPixel;
}

void TimeAxis::pan(double dx) { start += dx * secondsPerPixel; }

void TimeAxis::clamp(double total, double width) {
    width = std::max(width, 1.0);
    total = std::max(total, 1e-12);
    secondsPerPixel = std::clamp(secondsPerPixel, 1e-9, total / width);
    start = std::clamp(start, 0.0, std::max(0.0, total - width * secondsPerPixel));
}

std::vector<double> TimeAxis::ticks(double width, double minPixels, double& step) const {
    const double raw = minPixels * secondsPerPixel;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    step = decade;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw) {
            step = m * decade;
            break;
        }
    std::vector<double> out;
    const double end = time(width);
    for (double t = std::ceil(start / step) * step; t <= end + step * 1e-9; t += step)
        out.push_back(t);
    return out;
}

} // namespace shardscope::ui
