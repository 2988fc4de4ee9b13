#include "engine/util/units.h"

#include <cmath>
#include <cstdio>

namespace shardscope {

namespace {

std::string scaled(double value, const char* const* suffixes, int count, double base) {
    int i = 0;
    double v = value;
    while (std::fabs(v) >= base && i + 1 < count) {
        v /= base;
        ++i;
    }
    char buf[64];
    const int digits = std::fabs(v) >= 100 ? 0 : (std::fabs(v) >= 10 ? 1 : 2);
    if (std::fabs(v) >= 10 * base || !std::isfinite(v)) {
        // Past the largest unit: scientific notation in the smallest one (a count of 1.80e+39).
        std::snprintf(buf, sizeof buf, "%.2e%s%s", value, suffixes[0][0] == '\0' ? "" : " ", suffixes[0]);
        return buf;
    }
    if (suffixes[i][0] == '\0')
        std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    else
        std::snprintf(buf, sizeof buf, "%.*f %s", digits, v, suffixes[i]);
    return buf;
}

} // namespace

std::string formatBytes(double bytes) {
    if (bytes == 0)
        return "0 B";
    static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    return scaled(bytes, units, 6, 1000.0);
}

std::string formatSeconds(double seconds) {
    char buf[64];
    const double a = std::fabs(seconds);
    if (a == 0.0)
        return "0 s";
    if (a >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f s", seconds);
    else if (a >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.2f us", seconds * 1e6);
    return buf;
}

std::string formatCount(double count) {
    static const char* const units[] = {"", "k", "M", "G", "T", "P", "E"};
    return scaled(count, units, 7, 1000.0);
}

} // namespace shardscope
