#include "collective_badges.h"

#include "engine/util/units.h"

#include <algorithm>

namespace shardscope::ui {

void addCollectives(std::vector<CollectiveSummary>& summary, const std::vector<CollectiveCost>& collectives,
                    bool resharding) {
    for (const CollectiveCost& c : collectives) {
        if ((c.purpose == CommPurpose::Resharding) != resharding)
            continue;
        auto it = std::find_if(summary.begin(), summary.end(), [&](const CollectiveSummary& s) { return s.kind == c.kind; });
        if (it == summary.end()) {
            summary.push_back(CollectiveSummary{c.kind, 0, 0});
            it = summary.end() - 1;
        }
        it->count += c.count;
        it->bytes += c.bytes * c.count;
    }
    std::sort(summary.begin(), summary.end(),
              [](const CollectiveSummary& a, const CollectiveSummary& b) { return a.kind < b.kind; });
}

std::string badgeText(const CollectiveSummary& s) {
    return std::string(collectiveBadge(s.kind)) + " " + formatBytes(s.bytes);
}

} // namespace shardscope::ui
