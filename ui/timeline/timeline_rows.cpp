#include "timeline_rows.h"

#include <algorithm>

namespace shardscope::ui {

TimelineRows::TimelineRows(int devices, int perNode, const std::vector<bool>& folded, double laneHeight,
                           double headerHeight, const std::vector<Lane>& lanes) {
    perNode = std::max(1, perNode);
    double y = 0;
    for (int first = 0; first < devices; first += perNode) {
        const int node = first / perNode;
        rows_.push_back(TimelineRow{node, -1, Lane::Compute, y, headerHeight});
        y += headerHeight;
        if (static_cast<std::size_t>(node) < folded.size() && folded[static_cast<std::size_t>(node)])
            continue;
        for (int d = first; d < std::min(devices, first + perNode); ++d)
            for (Lane lane : lanes) {
                rows_.push_back(TimelineRow{node, d, lane, y, laneHeight});
                y += laneHeight;
            }
    }
    height_ = y;
}

int TimelineRows::rowAt(double y) const {
    auto it = std::upper_bound(rows_.begin(), rows_.end(), y, [](double v, const TimelineRow& r) { return v < r.y; });
    if (it == rows_.begin())
        return -1;
    --it;
    return y < it->y + it->height ? static_cast<int>(it - rows_.begin()) : -1;
}

int TimelineRows::rowOf(int device, Lane lane) const {
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].device == device && rows_[i].lane == lane)
            return static_cast<int>(i);
    return -1;
}

} // namespace shardscope::ui
