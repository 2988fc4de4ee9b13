#pragma once
// Built-in clusters from published hardware figures.

#include "engine/cluster/cluster.h"

#include <string>
#include <vector>

namespace shardscope {

/// A preset's name and a one-line description for `shardscope-cli clusters`.
struct ClusterPresetInfo {
    std::string name;
    std::string description;
};

/// Every cluster preset.
std::vector<ClusterPresetInfo> clusterPresets();
/// The preset `name` scaled to `nodes` nodes. Throws InputError for an unknown name or nodes < 1.
Cluster clusterPreset(const std::string& name, int nodes);

} // namespace shardscope
