#pragma once
// Devices that run the same timeline: the simulator's equivalence classes.
//
// Every device runs the same SPMD program; only its collectives can differ, through the shape of
// the groups it belongs to and through whom it waits for. Two devices are equivalent when, for
// every axis set the program communicates over, their groups spread over the link levels the same
// way and hold the same mix of classes (colour refinement until stable). On a mesh whose axes nest
// into the link levels there is one class. Example: `data=4,model=3` on three 4-GPU nodes has two:
// devices 0-2 and 9-11 (model groups inside a node) and 3-8 (model groups across a node boundary).

#include "engine/cluster/cluster.h"
#include "engine/cluster/mesh.h"

#include <map>
#include <vector>

namespace shardscope {

/// A partition of the devices into classes, with what each class's groups contain.
struct DeviceClasses {
    std::vector<int> classOf;                  ///< per device
    std::vector<std::vector<int>> members;     ///< per class, ascending; class order by first member
    /// For each axis set, per class: the classes present in a group of a member (sorted).
    std::map<AxisSet, std::vector<std::vector<int>>> peers;

    /// Number of classes.
    std::size_t size() const { return members.size(); }
    /// The device that stands for class `c` (its lowest member).
    int representative(std::size_t c) const { return members[c].front(); }
};

/// The classes of the devices of `mesh` on `cluster` for a program that communicates over `sets`.
DeviceClasses deviceClasses(const Cluster& cluster, const Mesh& mesh, const std::vector<AxisSet>& sets);

} // namespace shardscope
