#pragma once
// Exports of a simulated step: Chrome trace-event JSON (Perfetto, chrome://tracing) and a plain
// event list for other tools.

#include "engine/cluster/cluster.h"
#include "engine/sim/simulator.h"

#include <string>
#include <vector>

namespace shardscope {

/// The trace of `devices` (ascending ids): a process per device named "node N / rank k" (pipelined:
/// "node N / rank k / stage s"), a thread per
/// stream, an "X" event per task with args {op, phase, bytes, axes, kind}, flow events joining the
/// shown participants of each collective, and a "C" counter of memory in use.
std::string chromeTraceJson(const SimResult& r, const Cluster& cluster, const Mesh& mesh,
                            const std::vector<int>& devices);

/// Throws InputError when showing `devices` would write more than kMaxTraceEvents events (each
/// device repeats its class's events), naming the count and suggesting fewer devices.
void checkTraceBudget(const SimResult& r, const std::vector<int>& devices);

/// The event list of `devices` as JSON: {devices, classes [{class, devices, step_time_s}], events
/// [{device, class, stream, op, phase, kind, start_s, duration_s, bytes, axes, microbatch}]}. A class's
/// events hold for every device of the class.
std::string eventsJson(const SimResult& r, const Mesh& mesh, const std::vector<int>& devices);

} // namespace shardscope
