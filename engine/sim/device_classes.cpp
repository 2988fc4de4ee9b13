#include "engine/sim/device_classes.h"

#include "engine/cost/collectives.h"

#include <algorithm>

namespace shardscope {

namespace {

/// The groups over one axis set and the shape of each, numbered per set.
struct SetGroups {
    AxisSet set = 0;
    std::vector<std::vector<int>> groups;
    std::vector<int> shape;      ///< per group: index of its span among the distinct spans
    std::vector<int> groupOf;    ///< per device
};

SetGroups groupsOf(const Cluster& cluster, const Mesh& mesh, AxisSet set) {
    SetGroups g;
    g.set = set;
    g.groups = mesh.groups(set);
    g.groupOf.assign(static_cast<std::size_t>(mesh.deviceCount()), 0);
    std::vector<GroupSpan> distinct;
    for (std::size_t i = 0; i < g.groups.size(); ++i) {
        const GroupSpan span = spanOfGroup(cluster, g.groups[i]);
        auto it = std::find(distinct.begin(), distinct.end(), span);
        if (it == distinct.end())
            it = distinct.insert(distinct.end(), span);
        g.shape.push_back(static_cast<int>(it - distinct.begin()));
        for (int d : g.groups[i])
            g.groupOf[static_cast<std::size_t>(d)] = static_cast<int>(i);
    }
    return g;
}

/// The sorted distinct colours of the devices in `group`.
std::vector<int> coloursIn(const std::vector<int>& group, const std::vector<int>& colour) {
    std::vector<int> out;
    for (int d : group)
        out.push_back(colour[static_cast<std::size_t>(d)]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace

DeviceClasses deviceClasses(const Cluster& cluster, const Mesh& mesh, const std::vector<AxisSet>& sets) {
    const auto devices = static_cast<std::size_t>(mesh.deviceCount());
    std::vector<SetGroups> all;
    for (AxisSet set : sets)
        all.push_back(groupsOf(cluster, mesh, set));

    // Colour refinement: a device's new colour is its old one, and per set the shape of its group
    // and the colours in it. Stops when no class splits.
    std::vector<int> colour(devices, 0);
    std::size_t count = 1;
    for (;;) {
        std::vector<std::vector<std::vector<int>>> inGroup(all.size());
        for (std::size_t k = 0; k < all.size(); ++k)
            for (const auto& group : all[k].groups)
                inGroup[k].push_back(coloursIn(group, colour));
        std::map<std::vector<int>, int> numbering;
        std::vector<int> next(devices);
        for (std::size_t d = 0; d < devices; ++d) {
            std::vector<int> signature{colour[d]};
            for (std::size_t k = 0; k < all.size(); ++k) {
                const auto g = static_cast<std::size_t>(all[k].groupOf[d]);
                signature.push_back(-1 - all[k].shape[g]);
                signature.insert(signature.end(), inGroup[k][g].begin(), inGroup[k][g].end());
            }
            // Number classes by their first device, so class 0 holds device 0.
            next[d] = numbering.emplace(std::move(signature), static_cast<int>(numbering.size())).first->second;
        }
        colour.swap(next);
        if (numbering.size() == count)
            break;
        count = numbering.size();
    }

    DeviceClasses out;
    out.classOf = colour;
    out.members.resize(count);
    for (std::size_t d = 0; d < devices; ++d)
        out.members[static_cast<std::size_t>(colour[d])].push_back(static_cast<int>(d));
    for (const SetGroups& g : all) {
        auto& perClass = out.peers[g.set];
        for (const auto& members : out.members) {
            const auto group = static_cast<std::size_t>(g.groupOf[static_cast<std::size_t>(members.front())]);
            perClass.push_back(coloursIn(g.groups[group], colour));
        }
    }
    return out;
}

} // namespace shardscope
