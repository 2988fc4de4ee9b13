#include "engine/sim/link_traffic.h"

#include <set>

namespace shardscope {

std::vector<LevelTraffic> linkTraffic(const Cluster& cluster, const Mesh& mesh, const std::vector<int>& classOf,
                                      const std::vector<std::map<AxisSet, std::vector<double>>>& perClass,
                                      const std::vector<StageSends>& sends) {
    const std::size_t levels = cluster.levels.size();
    std::vector<LevelTraffic> out(levels);
    std::vector<std::map<std::pair<int, int>, double>> pairs(levels);
    for (std::size_t l = 0; l < levels; ++l)
        out[l].level = cluster.levels[l].name;
    std::set<AxisSet> sets;
    for (const auto& byClass : perClass)
        for (const auto& entry : byClass)
            sets.insert(entry.first);
    // Bytes device `d` sends on level `l` for collectives over `axes`.
    auto sent = [&](int d, AxisSet axes, std::size_t l) {
        const auto& byClass = perClass[static_cast<std::size_t>(classOf[static_cast<std::size_t>(d)])];
        const auto it = byClass.find(axes);
        return it == byClass.end() || l >= it->second.size() ? 0.0 : it->second[l];
    };
    for (AxisSet axes : sets) {
        const auto groups = mesh.groups(axes);
        int radix = 1;
        for (std::size_t l = 0; l < levels; ++l) {
            const int size = cluster.levels[l].size;
            for (const auto& members : groups) {
                // Endpoints at this level (devices for level 0, nodes for level 1...) with the bytes
                // their members send, ringed inside their parent at the next level up.
                std::map<int, std::map<int, double>> byParent;
                for (int d : members)
                    byParent[d / radix / size][d / radix] += sent(d, axes, l);
                for (const auto& [parent, endpoints] : byParent) {
                    if (endpoints.size() < 2)
                        continue;
                    for (auto it = endpoints.begin(); it != endpoints.end(); ++it) {
                        auto next = std::next(it) == endpoints.end() ? endpoints.begin() : std::next(it);
                        pairs[l][{it->first, next->first}] += it->second;
                        out[l].bytesPerStep += it->second;
                    }
                }
            }
            radix *= size;
        }
    }
    if (!sends.empty()) {
        // Each device sends to its peer in the neighbouring stage: endpoints at the lowest level whose
        // parent holds both (two devices of one node: level 0; of two nodes: level 1).
        const int stages = int(sends.size());
        const int perStage = mesh.deviceCount() / stages;
        auto add = [&](int from, int to, double bytes) {
            if (bytes <= 0 || from == to)
                return;
            int radix = 1;
            for (std::size_t l = 0; l < levels; ++l) {
                const int size = cluster.levels[l].size;
                if (from / radix / size == to / radix / size || l + 1 == levels) {
                    pairs[l][{from / radix, to / radix}] += bytes;
                    out[l].bytesPerStep += bytes;
                    return;
                }
                radix *= size;
            }
        };
        for (int d = 0; d < mesh.deviceCount(); ++d) {
            const int s = d / perStage, local = d % perStage;
            add(d, ((s + 1) % stages) * perStage + local, sends[std::size_t(s)].forward);
            add(d, ((s + stages - 1) % stages) * perStage + local, sends[std::size_t(s)].backward);
        }
    }
    for (std::size_t l = 0; l < levels; ++l) {
        out[l].busiestPair = "-";
        const char* unit = l == 0 ? "device " : "node ";
        for (const auto& [pair, bytes] : pairs[l]) {
            out[l].pairs.push_back(PairTraffic{pair.first, pair.second, bytes});
            if (bytes > out[l].busiestPairBytes) {
                out[l].busiestPairBytes = bytes;
                out[l].busiestPair = unit + std::to_string(pair.first) + " -> " + unit + std::to_string(pair.second);
            }
        }
    }
    return out;
}

} // namespace shardscope
