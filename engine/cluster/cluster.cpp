#include "engine/cluster/cluster.h"

#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <algorithm>

namespace shardscope {

double DeviceSpec::peakFor(DType t) const {
    if (auto it = peakFlops.find(t); it != peakFlops.end())
        return it->second;
    // Without FP8 tensor cores (A100) FP8 data is widened to BF16 for the math.
    if (auto it = peakFlops.find(DType::BF16); t == DType::FP8 && it != peakFlops.end())
        return it->second;
    if (auto it = peakFlops.find(DType::FP32); it != peakFlops.end())
        return it->second;
    double best = 0;
    for (const auto& [d, v] : peakFlops)
        best = std::max(best, v);
    return best;
}

void Cluster::checkDeviceCount(const std::string& where) const {
    std::int64_t devices = 1;
    std::string product;
    for (const LinkLevel& l : levels) {
        product += (product.empty() ? "" : " x ") + std::to_string(l.size);
        if (l.size < 1 || (devices *= l.size) > kMaxDevices)
            throw InputError(where + ": the levels' sizes (" + product + (l.size < 1 ? "" : " ...") + ") give " +
                             (l.size < 1 ? std::string("no devices") : "more than the limit of " +
                                                                          withSeparators(kMaxDevices) + " devices"));
    }
}

int Cluster::scaleUpSize() const {
    int n = 1;
    for (const LinkLevel& l : levels) {
        if (l.bandwidth < levels.front().bandwidth)
            break;
        n *= l.size;
    }
    return n;
}

int Cluster::deviceCount() const {
    int n = 1;
    for (const LinkLevel& l : levels)
        n *= l.size;
    return n;
}

void Cluster::validate(const std::string& where) const {
    if (levels.empty())
        throw InputError(where + ": field 'levels' is empty");
    if (levels.size() > std::size_t(kMaxLinkLevels))
        throw InputError(where + ": field 'levels' has " + std::to_string(levels.size()) + " levels; at most " +
                         std::to_string(kMaxLinkLevels) + " are supported");
    checkDeviceCount(where);
    if (device.peakFlops.empty())
        throw InputError(where + ": field 'device.peak_flops' is empty");
    for (const auto& [d, v] : device.peakFlops)
        if (!(v > 0))
            throw InputError(where + ": field 'device.peak_flops." + std::string(dtypeName(d)) + "' must be positive");
    if (!(device.memoryBytes > 0))
        throw InputError(where + ": field 'device.memory_bytes' must be positive");
    if (!(device.memoryBandwidth > 0))
        throw InputError(where + ": field 'device.memory_bandwidth' must be positive");
    if (!(device.efficiency > 0 && device.efficiency <= 1))
        throw InputError(where + ": field 'device.efficiency' must be in (0, 1]");
    if (!(device.fp8Efficiency > 0 && device.fp8Efficiency <= 1))
        throw InputError(where + ": field 'device.fp8_efficiency' must be in (0, 1]");
    if (device.fp4Flops < 0)
        throw InputError(where + ": field 'device.peak_flops.fp4' must be positive");
    if (!(device.attentionEfficiency > 0 && device.attentionEfficiency <= 1))
        throw InputError(where + ": field 'device.attention_efficiency' must be in (0, 1]");
    if (!(device.attentionDropoutEfficiency > 0 && device.attentionDropoutEfficiency <= 1))
        throw InputError(where + ": field 'device.attention_dropout_efficiency' must be in (0, 1]");
    if (!(device.memoryEfficiency > 0 && device.memoryEfficiency <= 1))
        throw InputError(where + ": field 'device.memory_efficiency' must be in (0, 1]");
    if (device.launchFloor < 0)
        throw InputError(where + ": field 'device.launch_floor_s' must not be negative");
    if (!(device.overlapSlowdown >= 0 && device.overlapSlowdown <= 4))
        throw InputError(where + ": field 'device.overlap_slowdown' must be between 0 and 4");
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const std::string field = where + ": field 'levels[" + std::to_string(i) + "]";
        if (levels[i].size < 1)
            throw InputError(field + ".size' must be at least 1");
        if (!(levels[i].bandwidth > 0))
            throw InputError(field + ".bandwidth' must be positive");
        if (levels[i].latency < 0)
            throw InputError(field + ".latency_s' must not be negative");
        if (levels[i].capacity < 0 || (levels[i].capacity > 0 && levels[i].size > levels[i].capacity))
            throw InputError(field + ".capacity' must be 0 (no limit) or at least the level's size");
        if (levels[i].baseLatency < 0)
            throw InputError(field + ".base_latency_s' must not be negative");
        // Above 1 only with in-switch reduction (NVLink SHARP reaches 482 GB/s bus bandwidth on 450).
        if (!(levels[i].efficiency > 0 && levels[i].efficiency <= 2))
            throw InputError(field + ".efficiency' must be in (0, 2]");
    }
}

Cluster withNodes(Cluster c, int nodes) {
    const std::string where = "--nodes " + std::to_string(nodes);
    if (nodes < 1)
        throw InputError("--nodes: must be at least 1, got " + std::to_string(nodes));
    if (c.levels.size() < 2)
        c.levels.push_back(LinkLevel{"cluster", 1, c.levels.front().bandwidth, c.levels.front().latency,
                                     c.levels.front().efficiency, c.levels.front().baseLatency});
    if (c.levels.size() == 2) {
        c.levels[1].size = nodes;
    } else if (c.levels.size() == 3 && c.levels[1].capacity > 0) {
        const int capacity = c.levels[1].capacity;
        int domain = std::min(nodes, capacity);
        while (nodes % domain != 0)
            --domain;
        if (nodes > capacity && 2 * domain < capacity)
            throw InputError(where + " on " + c.name + ": " + std::to_string(nodes) + " " + c.levels[0].name +
                             "s do not split into equal " + c.levels[1].name + " groups of " +
                             std::to_string((capacity + 1) / 2) + " to " + std::to_string(capacity) +
                             " (largest divisor " + std::to_string(domain) + "); try a multiple of " +
                             std::to_string(capacity) + " or of a size in that range");
        c.levels[1].size = domain;
        c.levels[2].size = nodes / domain;
    } else {
        throw InputError(where + " on " + c.name + ": --nodes sets the node count of clusters of two levels, or of "
                         "three whose level 1 has a 'capacity'; this one has " + std::to_string(c.levels.size()) +
                         " levels: set their sizes in the file");
    }
    c.checkDeviceCount(where);
    return c;
}

} // namespace shardscope
