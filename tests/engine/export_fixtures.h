#pragma once
// The graph and plans the export tests share: GPT-3 175B's depth at a small width, and baseline plans
// on a mesh with an optional stage cut.

#include "engine/builders/builders.h"
#include "engine/plans/baselines.h"

#include <string>
#include <vector>

namespace shardscope::testing {

/// GPT-3 175B's shape (96 layers) with a small hidden size, so that building it is quick; global
/// batch 1536, built for `m` micro-batches.
inline Graph gpt96(int m) {
    ModelParams p;
    p.layers = 96;
    p.hidden = 256;
    p.heads = 8;
    p.seq = 256;
    p.vocab = 512;
    p.batch = 1536;
    return buildModel("gpt", p, m, "gpt");
}

/// The plan `spec` on `mesh` under `s`, cut as `cut` (empty: balanced).
inline Plan planOf(const Graph& g, const Mesh& mesh, const std::string& spec, const StepSettings& s,
                   std::vector<int> cut = {}) {
    const PipelineLayout layout = makePipelineLayout(g, mesh.pipelineStages(), s.virtualStages, std::move(cut));
    return baselinePlan(g, mesh, spec, s, nullptr, mesh.pipelineStages() > 1 ? &layout : nullptr);
}

} // namespace shardscope::testing
