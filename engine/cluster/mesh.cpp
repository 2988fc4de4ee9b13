#include "engine/cluster/mesh.h"

#include "engine/util/enum_names.h"
#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <bit>
#include <cctype>
#include <sstream>

namespace shardscope {

Mesh Mesh::parse(const std::string& text) {
    Mesh mesh;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        const auto eq = part.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
            throw InputError("--mesh '" + text + "': expected name=size, got '" + part + "'");
        MeshAxis axis;
        axis.name = part.substr(0, eq);
        for (char ch : axis.name)
            if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_')
                throw InputError("--mesh '" + text + "': axis name '" + axis.name + "' must be letters, digits or _");
        const std::string size = part.substr(eq + 1);
        for (char ch : size)
            if (!std::isdigit(static_cast<unsigned char>(ch)))
                throw InputError("--mesh '" + text.substr(0, 80) + "': size '" + size.substr(0, 20) + "' of axis '" +
                                 axis.name.substr(0, 40) + "' is not a number");
        if (size.size() > 7 || std::stoll(size) > kMaxDevices)
            throw InputError("--mesh '" + text.substr(0, 80) + "': axis '" + axis.name.substr(0, 40) + "' of size " +
                             size.substr(0, 20) + " exceeds the limit of " + withSeparators(kMaxDevices) + " devices");
        axis.size = std::stoi(size);
        if (axis.size < 1)
            throw InputError("--mesh '" + text + "': axis '" + axis.name + "' must have size at least 1");
        if (mesh.find(axis.name))
            throw InputError("--mesh '" + text + "': axis '" + axis.name + "' named twice");
        mesh.axes.push_back(axis);
    }
    if (mesh.axes.empty())
        throw InputError("--mesh: empty mesh");
    std::int64_t devices = 1;
    for (const MeshAxis& a : mesh.axes)
        if ((devices *= a.size) > kMaxDevices)
            throw InputError("--mesh '" + text.substr(0, 80) + "': more than the limit of " + withSeparators(kMaxDevices) +
                             " devices");
    if (mesh.axes.size() > kMaxMeshAxes)
        throw InputError("--mesh '" + text + "': at most " + std::to_string(kMaxMeshAxes) + " axes");
    if (const auto pipe = mesh.pipeAxis(); pipe && pipe->value != 0)
        throw InputError("--mesh '" + text + "': the pipe axis must come first (pipe=P,data=..,model=..)");
    return mesh;
}

std::string Mesh::toString() const {
    std::string s;
    for (const MeshAxis& a : axes)
        s += (s.empty() ? "" : ",") + a.name + "=" + std::to_string(a.size);
    return s;
}

int Mesh::deviceCount() const {
    int n = 1;
    for (const MeshAxis& a : axes)
        n *= a.size;
    return n;
}

namespace {

/// The axis name of each role; an axis named otherwise has none.
constexpr EnumNames<AxisRole, 5> kRoles{{{{AxisRole::Pipe, kPipeAxis},
                                          {AxisRole::Data, "data"},
                                          {AxisRole::Model, "model"},
                                          {AxisRole::Sequence, "seq"},
                                          {AxisRole::Expert, "expert"}}}};

} // namespace

std::string_view axisRoleName(AxisRole role) { return role == AxisRole::None ? std::string_view() : kRoles.name(role); }

AxisRole axisRoleOf(std::string_view name) { return kRoles.parse(name).value_or(AxisRole::None); }

std::optional<AxisId> Mesh::axisOf(AxisRole role) const {
    if (role == AxisRole::None)
        return std::nullopt;
    for (std::size_t a = 0; a < axes.size(); ++a)
        if (axes[a].role() == role)
            return AxisId(a);
    return std::nullopt;
}

AxisSet Mesh::dataParallelAxes() const {
    AxisSet set = 0;
    for (const AxisRole role : {AxisRole::Data, AxisRole::Expert})
        if (const auto a = axisOf(role))
            set |= axisBit(*a);
    return set;
}

std::optional<AxisId> Mesh::find(const std::string& name) const {
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (axes[i].name == name)
            return AxisId(i);
    return std::nullopt;
}

int Mesh::stride(AxisId a) const {
    int s = 1;
    for (std::size_t i = a.index() + 1; i < axes.size(); ++i)
        s *= axes[i].size;
    return s;
}

int Mesh::groupSize(AxisSet set) const {
    int n = 1;
    for (AxisSet rest = set; rest; rest &= rest - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(rest));
        if (i < axes.size())
            n *= axes[i].size;
    }
    return n;
}

std::string Mesh::setName(AxisSet set) const {
    std::string s;
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (set & (AxisSet(1) << i))
            s += (s.empty() ? "" : "+") + axes[i].name;
    return s.empty() ? "-" : s;
}

int Mesh::groupLeader(int device, AxisSet set) const {
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (set & (AxisSet(1) << i))
            device -= coordinate(device, AxisId(i)) * stride(AxisId(i));
    return device;
}

std::vector<std::vector<int>> Mesh::groups(AxisSet set) const {
    const int devices = deviceCount();
    std::vector<int> slot(static_cast<std::size_t>(devices), -1);
    std::vector<std::vector<int>> out;
    for (int d = 0; d < devices; ++d) {
        int& s = slot[static_cast<std::size_t>(groupLeader(d, set))];
        if (s < 0) {
            s = static_cast<int>(out.size());
            out.emplace_back();
        }
        out[static_cast<std::size_t>(s)].push_back(d);
    }
    return out;
}

void Mesh::verify(int devices, const std::string& clusterName) const {
    if (deviceCount() != devices)
        throw InputError("mesh " + toString() + " has " + std::to_string(deviceCount()) + " devices but cluster " +
                         clusterName + " has " + std::to_string(devices));
}

} // namespace shardscope
