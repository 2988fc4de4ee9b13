#pragma once
// Collectives summed by kind for the badges of the graph view: "AR 12.6 MB", "A2A 3.1 GB".

#include "engine/cost/cost_terms.h"

#include <string>
#include <vector>

namespace shardscope::ui {

/// All collectives of one kind: how many run per step and the bytes they move per step.
struct CollectiveSummary {
    CollectiveKind kind = CollectiveKind::AllReduce;
    int count = 0;
    double bytes = 0;              ///< sum of buffer bytes x occurrences per step
};

/// Adds `collectives` into `summary`, one entry per kind in the order AR, AG, RS, A2A, SR.
void addCollectives(std::vector<CollectiveSummary>& summary, const std::vector<CollectiveCost>& collectives,
                    bool resharding);
/// "AR 12.6 MB".
std::string badgeText(const CollectiveSummary& s);

} // namespace shardscope::ui
