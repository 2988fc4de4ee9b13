#include "engine/sim/device_selection.h"

#include "engine/util/error.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace shardscope {

namespace {

int deviceId(const std::string& text, const std::string& part, int devices) {
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw InputError("device list '" + text + "': '" + part + "' is not a device id");
    const int id = std::stoi(part);
    if (id >= devices)
        throw InputError("device list '" + text + "': device " + part + " does not exist (" + std::to_string(devices) +
                         " devices, ids 0-" + std::to_string(devices - 1) + ")");
    return id;
}

} // namespace

std::vector<int> parseDeviceList(const std::string& text, int devices) {
    std::vector<int> ids;
    if (text == "all") {
        for (int d = 0; d < devices; ++d)
            ids.push_back(d);
        return ids;
    }
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        const auto dash = part.find('-');
        const int from = deviceId(text, part.substr(0, dash), devices);
        const int to = dash == std::string::npos ? from : deviceId(text, part.substr(dash + 1), devices);
        if (to < from)
            throw InputError("device list '" + text + "': range '" + part + "' runs backwards");
        for (int d = from; d <= to; ++d)
            ids.push_back(d);
    }
    if (ids.empty())
        throw InputError("device list '" + text + "' names no device");
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

std::string formatDeviceRanges(const std::vector<int>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(ids[i]);
        if (j > i)
            out += "-" + std::to_string(ids[j]);
        i = j + 1;
    }
    return out;
}

std::vector<int> defaultShownDevices(const SimResult& r, const Cluster& cluster) {
    std::vector<int> ids;
    for (int d = 0; d < std::min(r.devices, cluster.devicesPerNode()); ++d)
        ids.push_back(d);
    for (const DeviceTimeline& line : r.classes)
        ids.push_back(line.devices.front());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

} // namespace shardscope
