#include "engine/sim/link_traffic.h"

namespace shardscope {

std::vector<LevelTraffic> linkTraffic(const Cluster& cluster, const Mesh& mesh,
                                      const std::map<AxisSet, std::vector<double>>& perDevice) {
    const std::size_t levels = cluster.levels.size();
    const int devices = mesh.deviceCount();
    std::vector<LevelTraffic> out(levels);
    std::vector<std::map<std::pair<int, int>, double>> pairs(levels);
    for (std::size_t l = 0; l < levels; ++l)
        out[l].level = cluster.levels[l].name;
    for (const auto& [axes, bytes] : perDevice) {
        // Groups: devices sharing their coordinates on the other axes.
        std::map<std::vector<int>, std::vector<int>> groups;
        for (int d = 0; d < devices; ++d) {
            std::vector<int> key;
            for (std::size_t a = 0; a < mesh.rank(); ++a)
                if (!(axes & (AxisSet(1) << a)))
                    key.push_back((d / mesh.stride(AxisId(a))) % mesh.axes[a].size);
            groups[key].push_back(d);
        }
        int radix = 1;
        for (std::size_t l = 0; l < levels; ++l) {
            const int size = cluster.levels[l].size;
            if (bytes[l] > 0)
                for (const auto& [key, members] : groups) {
                    // Endpoints at this level (devices for level 0, nodes for level 1...), with the
                    // members each holds, ringed inside their parent at the next level up.
                    std::map<int, std::map<int, int>> byParent;
                    for (int d : members)
                        ++byParent[d / radix / size][d / radix];
                    for (const auto& [parent, endpoints] : byParent) {
                        if (endpoints.size() < 2)
                            continue;
                        for (auto it = endpoints.begin(); it != endpoints.end(); ++it) {
                            auto next = std::next(it) == endpoints.end() ? endpoints.begin() : std::next(it);
                            const double sent = bytes[l] * it->second;
                            pairs[l][{it->first, next->first}] += sent;
                            out[l].bytesPerStep += sent;
                        }
                    }
                }
            radix *= size;
        }
    }
    for (std::size_t l = 0; l < levels; ++l) {
        out[l].busiestPair = "-";
        const char* unit = l == 0 ? "device " : "node ";
        for (const auto& [pair, bytes] : pairs[l])
            if (bytes > out[l].busiestPairBytes) {
                out[l].busiestPairBytes = bytes;
                out[l].busiestPair = unit + std::to_string(pair.first) + " -> " + unit + std::to_string(pair.second);
            }
    }
    return out;
}

} // namespace shardscope
