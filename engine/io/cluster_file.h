#pragma once
// The JSON cluster format (`*.cluster.json`, docs/DESIGN.md, Files) and the resolution of a cluster argument.

#include "engine/cluster/cluster.h"

#include <optional>
#include <string>

namespace shardscope {

/// Parses a cluster document; `source` names it in errors.
Cluster parseClusterJson(const std::string& text, const std::string& source);
/// The cluster as a JSON document that parseClusterJson reads back.
std::string clusterToJson(const Cluster& cluster);
/// A preset name or a *.cluster.json path; `nodes` overrides the node count (level 1 size).
Cluster loadCluster(const std::string& spec, std::optional<int> nodes);

} // namespace shardscope
