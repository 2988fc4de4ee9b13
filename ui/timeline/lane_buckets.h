#pragma once
// Level of detail for one timeline lane: spans wide enough are drawn as they are; runs of spans
// narrower than a pixel are merged into one bucket per pixel column, coloured by the longest span
// in it. Found by binary search, so a frame costs about (drawn buckets x log spans) per lane,
// however many spans the lane holds.

#include "time_axis.h"

#include <cstddef>
#include <vector>

namespace shardscope::ui {

/// One span of a lane. Assumes a lane's spans are sorted by start and do not overlap.
struct Span {
    double start = 0;
    double end = 0;
    int kind = 0;          ///< colour class (compute, all-reduce, ...)
};

/// What to draw: pixels [x0, x1) in the colour of `kind`, standing for `count` spans from `first`.
struct Bucket {
    double x0 = 0;
    double x1 = 0;
    int kind = 0;
    std::size_t first = 0;
    std::size_t count = 0;
};

/// The buckets of `spans` visible on `axis` across `width` pixels, left to right.
std::vector<Bucket> bucketLane(const std::vector<Span>& spans, const TimeAxis& axis, double width);

/// The index of the span under time `t`, or -1.
long spanAt(const std::vector<Span>& spans, double t);

/// A step function as (time, value) points sorted by time: value holds from its time to the next.
struct StepPoint {
    double time = 0;
    double value = 0;
};

/// The highest value of the step function `points` within each pixel column of `axis` across `width`
/// pixels (NaN before the first point). Costs the points in view plus a binary search.
std::vector<double> columnMaxima(const std::vector<StepPoint>& points, const TimeAxis& axis, int width);

} // namespace shardscope::ui
