#pragma once
// Which devices a trace or an event list shows: parsed from "0-7,64", "all", or the default.

#include "engine/cluster/cluster.h"
#include "engine/sim/simulator.h"

#include <string>
#include <vector>

namespace shardscope {

/// Parses `text` ("all", or device ids and ranges such as "0-7,64") for `devices` devices; the result
/// is ascending without repeats. Throws InputError naming the bad part.
std::vector<int> parseDeviceList(const std::string& text, int devices);
/// The ascending ids `ids` as ranges: "0-2,9-11".
std::string formatDeviceRanges(const std::vector<int>& ids);
/// The devices of the first node, and the first device of every class not among them.
std::vector<int> defaultShownDevices(const SimResult& r, const Cluster& cluster);

} // namespace shardscope
