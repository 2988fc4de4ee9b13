#pragma once
// The measurements format (`*.measurements.json`) that `calibrate` fits a cluster to:
// {"format": "shardscope-measurements", "version": 1, "runs": [{"name": "...", "model": NAME or PATH,
//  "set": {"layers": 24, ...}, "nodes": N, "mesh": "data=..,model=..", "strategy": NAME,
//  "batch": B, "microbatches": M, "recompute": "none|selective|full", "attention": "fused|unfused",
//  "precision": "bf16|fp8|mxfp8", "loss": "unfused|fused", "overlap": true, "tp_overlap": "off|backward|full",
//  "bucket_mb": 25, "schedule": "1f1b|gpipe|interleaved", "virtual_stages": V, "step_time_s": T}]}.
// Everything but model, mesh, batch and step_time_s may be left out: nodes 1, strategy dp,
// microbatches the fewest that fit, recompute none, attention fused, precision bf16, loss unfused,
// overlap on, tp_overlap off, buckets of 25 MB, 1F1B over one chunk.

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
