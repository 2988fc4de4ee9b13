#pragma once
// The measurements format (`*.measurements.json`) that `calibrate` fits a cluster to:
// {"format": "shardscope-measurements", "version": 1, "runs": [{"name": "...", "model": NAME or PATH,
//  "set": {"layers": 24, ...}, "nodes": N, "mesh": "data=..,model=..", "strategy": NAME,
//  "batch": B, "microbatches": M, "recompute": "none|selective|full", "attention": "fused|unfused",
//  "step_time_s": T}]}. name, set, nodes (1), strategy (dp), microbatches (the fewest that fit),
// recompute (none) and attention (fused) may be left out.

#include "engine/fidelity/measured_run.h"

#include <string>
#include <vector>

namespace shardscope {

/// Parses a measurements document; `source` names it in errors. Every run's cluster is `cluster`.
std::vector<MeasuredRun> parseMeasurementsJson(const std::string& text, const std::string& source,
                                               const std::string& cluster);
/// Reads and parses a measurements file.
std::vector<MeasuredRun> loadMeasurements(const std::string& path, const std::string& cluster);

} // namespace shardscope
