#include "lane_buckets.h"

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

/// The first index at or after `from` whose span starts at or after `t`: a galloping search, which
/// touches memory near `from` first (the next pixel's spans are usually close by).
std::size_t firstStartingFrom(const std::vector<Span>& spans, std::size_t from, double t) {
    std::size_t step = 1, lo = from, hi = from;
    while (hi < spans.size() && spans[hi].start < t) {
        lo = hi + 1;
        hi = from + step;
        step *= 2;
    }
    hi = std::min(hi, spans.size());
    auto it = std::lower_bound(spans.begin() + static_cast<long>(lo), spans.begin() + static_cast<long>(hi), t,
                               [](const Span& a, double v) { return a.start < v; });
    return static_cast<std::size_t>(it - spans.begin());
}

} // namespace

std::vector<Bucket> bucketLane(const std::vector<Span>& spans, const TimeAxis& axis, double width) {
    std::vector<Bucket> out;
    const double t0 = axis.time(0), t1 = axis.time(width);
    // Ends never decrease (sorted, no overlaps): the first span ending after t0.
    auto it = std::upper_bound(spans.begin(), spans.end(), t0, [](double t, const Span& s) { return t < s.end; });
    std::size_t i = static_cast<std::size_t>(it - spans.begin());
    while (i < spans.size() && spans[i].start < t1) {
        const Span& s = spans[i];
        const double x0 = axis.x(s.start), x1 = axis.x(s.end);
        if (x1 - x0 >= 1) {
            out.push_back(Bucket{std::max(x0, 0.0), std::min(x1, width), s.kind, i, 1});
            ++i;
            continue;
        }
        // A narrow span: merge everything that starts in its pixel column, except a last span that
        // runs past the column (it is drawn on its own next).
        // (A hair of slack, so a span starting on a column boundary is not put in the column before.)
        const double column = std::floor(x0 + 1e-7);
        const double columnEnd = axis.time(column + 1);
        std::size_t j = firstStartingFrom(spans, i, columnEnd);
        if (j > i + 1 && spans[j - 1].end > columnEnd)
            --j;
        j = std::max(j, i + 1);
        std::size_t longest = i;
        for (std::size_t k = i + 1; k < j && k < i + 64; ++k) // a bounded look for the colour
            if (spans[k].end - spans[k].start > spans[longest].end - spans[longest].start)
                longest = k;
        out.push_back(Bucket{std::max(column, 0.0), std::min(column + 1, width), spans[longest].kind, i, j - i});
        i = j;
    }
    return out;
}

long spanAt(const std::vector<Span>& spans, double t) {
    auto it = std::upper_bound(spans.begin(), spans.end(), t, [](double v, const Span& s) { return v < s.end; });
    if (it == spans.end() || it->start > t)
        return -1;
    return static_cast<long>(it - spans.begin());
}

std::vector<double> columnMaxima(const std::vector<StepPoint>& points, const TimeAxis& axis, int width) {
    std::vector<double> out(static_cast<std::size_t>(std::max(0, width)), std::nan(""));
    if (points.empty() || width <= 0)
        return out;
    // The point in force at the left edge: the last one at or before it.
    auto it = std::upper_bound(points.begin(), points.end(), axis.time(0),
                               [](double t, const StepPoint& p) { return t < p.time; });
    std::size_t i = static_cast<std::size_t>(it - points.begin());
    double current = i > 0 ? points[i - 1].value : std::nan("");
    for (int x = 0; x < width; ++x) {
        const double end = axis.time(x + 1);
        double most = current;
        while (i < points.size() && points[i].time < end) {
            current = points[i].value;
            most = std::isnan(most) ? current : std::max(most, current);
            ++i;
        }
        out[static_cast<std::size_t>(x)] = most;
    }
    return out;
}

} // namespace shardscope::ui
