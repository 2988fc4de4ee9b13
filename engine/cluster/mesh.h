#pragma once
// A logical device mesh: named axes, major to minor, whose sizes multiply to the device count.

#include "engine/util/ids.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// A set of mesh axes as a bit mask (bit i = axis i). Mesh order (major to minor) is implied.
using AxisSet = std::uint32_t;

/// The most axes a mesh may have (`--mesh` refuses more); strategies hold one entry per axis inline.
constexpr std::size_t kMaxMeshAxes = 8;

/// What a mesh axis is for. The mesh's text form names its axes and the role goes with the name
/// (docs/DESIGN.md, Cluster and mesh): `pipe` holds pipeline stages, `data` splits the batch and
/// carries ZeRO, `model` is tensor parallelism, `seq` context parallelism, `expert` expert
/// parallelism inside data parallelism (Megatron's --expert-model-parallel-size: the experts split
/// over it, every other op's batch split over it as over `data`); an axis of any other name has no
/// role, and the search may split any factor over it.
enum class AxisRole { Pipe, Data, Model, Sequence, Expert, None };

/// The name an axis of `role` has: "pipe", "data", "model", "seq", "expert" ("" for None).
std::string_view axisRoleName(AxisRole role);
/// The role of an axis named `name`.
AxisRole axisRoleOf(std::string_view name);

/// The name of the pipeline axis: the major-most axis, whose coordinate is a device's stage.
inline constexpr const char* kPipeAxis = "pipe";

/// One named mesh axis.
struct MeshAxis {
    std::string name;
    int size = 1;

    /// An axis of `role` (named for it) with `size` devices.
    static MeshAxis of(AxisRole role, int size) { return MeshAxis{std::string(axisRoleName(role)), size}; }
    /// What the axis is for, by its name.
    AxisRole role() const { return axisRoleOf(name); }

    bool operator==(const MeshAxis&) const = default;
};

/// Named axes listed major to minor (`data=16,model=8`). Device ids are node-major, so the minor
/// axes stay inside a node. An axis named `pipe` (kPipeAxis) must come first, as Megatron lays ranks
/// out (tensor parallel fastest, then data, then pipeline): `pipe=8,data=16,model=8` gives stage p the
/// devices [128 p, 128 p + 128), each stage a sub-mesh `data=16,model=8` of its own. No op strategy
/// splits a factor over it.
struct Mesh {
    std::vector<MeshAxis> axes;

    /// Parses "data=16,model=8". Throws InputError naming the bad part.
    static Mesh parse(const std::string& text);
    /// The text form "data=16,model=8".
    std::string toString() const;
    /// Number of devices (product of the sizes).
    int deviceCount() const;
    /// The axis called `name`, if any.
    std::optional<AxisId> find(const std::string& name) const;
    /// Number of axes.
    std::size_t rank() const { return axes.size(); }
    /// Size of axis `a`.
    int size(AxisId a) const { return axes[a.index()].size; }
    /// Device-id stride of axis `a` (product of the sizes of the axes minor to it).
    int stride(AxisId a) const;
    /// Product of the sizes of the axes in `set`.
    int groupSize(AxisSet set) const;
    /// Names of the axes in `set`, joined by '+': "data+model"; "-" for the empty set.
    std::string setName(AxisSet set) const;
    /// The coordinate of `device` on axis `a`.
    int coordinate(int device, AxisId a) const { return (device / stride(a)) % size(a); }
    /// The lowest device of the group over `set` containing `device` (the devices that share its
    /// coordinates on every axis outside `set`).
    int groupLeader(int device, AxisSet set) const;
    /// Every group over `set`: the devices of each in ascending order, groups by their first device.
    std::vector<std::vector<int>> groups(AxisSet set) const;
    /// The axis of `role`, if the mesh has one (None: nullopt).
    std::optional<AxisId> axisOf(AxisRole role) const;
    /// The size of the axis of `role`, 1 without one: the degree of that parallelism.
    int degreeOf(AxisRole role) const { return axisOf(role) ? size(*axisOf(role)) : 1; }
    /// The axes data parallelism spans, which ZeRO shards over: `data` and `expert` (expert
    /// parallelism is carved out of data parallelism); the empty set without either.
    AxisSet dataParallelAxes() const;
    /// Data-parallel replicas: the product of the dataParallelAxes() sizes (1 without any).
    int dataParallelDegree() const { return groupSize(dataParallelAxes()); }
    /// The pipe axis, if the mesh has one.
    std::optional<AxisId> pipeAxis() const { return axisOf(AxisRole::Pipe); }
    /// Pipeline stages: the pipe axis's size, 1 without one.
    int pipelineStages() const { return pipeAxis() ? size(*pipeAxis()) : 1; }
    /// Every axis but the pipe axis (the axes a stage's sub-mesh has).
    AxisSet stageAxes() const {
        const AxisSet all = (AxisSet(1) << axes.size()) - 1;
        return pipeAxis() ? all & ~(AxisSet(1) << pipeAxis()->value) : all;
    }
    /// Checks the device count equals `devices`. Throws InputError naming both counts.
    void verify(int devices, const std::string& clusterName) const;

    /// Same axes, names and sizes, in the same order.
    bool operator==(const Mesh&) const = default;
};

/// The bit of axis `a`.
constexpr AxisSet axisBit(AxisId a) { return AxisSet(1) << a.value; }

} // namespace shardscope
