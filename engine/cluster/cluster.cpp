#include "engine/cluster/cluster.h"

#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <algorithm>

namespace shardscope {

double DeviceSpec::peakFor(DType t) const {
    if (auto it = peakFlops.find(t); it != peakFlops.end())
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
    if (!(device.attentionEfficiency > 0 && device.attentionEfficiency <= 1))
        throw InputError(where + ": field 'device.attention_efficiency' must be in (0, 1]");
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
        if (levels[i].baseLatency < 0)
            throw InputError(field + ".base_latency_s' must not be negative");
        // Above 1 only with in-switch reduction (NVLink SHARP reaches 482 GB/s bus bandwidth on 450).
        if (!(levels[i].efficiency > 0 && levels[i].efficiency <= 2))
            throw InputError(field + ".efficiency' must be in (0, 2]");
    }
}

} // namespace shardscope
