#pragma once
// Chrome trace-event JSON (Perfetto, chrome://tracing) of a simulated step.

#include "engine/sim/simulator.h"

#include <string>

namespace shardscope {

/// The trace of `r`: a process per device of the first node (named "node 0 / rank k"), a thread per
/// stream, an "X" event per task with args {op, bytes, axes, phase}, flow events joining the
/// participants of each collective, and a "C" counter of memory in use.
std::string chromeTraceJson(const SimResult& r, const Graph& graph, const Cluster& cluster, const Mesh& mesh);

/// The event list as plain JSON for other tools: [{device, stream, op, phase, kind, start_s,
/// duration_s, bytes, axes}]. `device` is "all": one simulated device class stands for every device.
std::string eventsJson(const SimResult& r, const Mesh& mesh);

} // namespace shardscope
