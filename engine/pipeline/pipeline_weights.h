#pragma once
// How a sum over every op stands for a pipelined step, for searches that add op and edge costs
// (engine/search). Each op runs on its stage's devices only, so with P stages a device does 1/P of
// the ops on average: the pipelined step (pipeline_cost.h) is at least (m + (P-1)/V') / (m P) of the
// summed per-micro-batch time (the slowest stage's excess and the sends only add) plus 1/P of the
// once-per-step work (optimizer, gradient synchronisation), so searches may prune with these sums.
// The first stage, which holds the most, keeps 1/P of the parameters, gradients and optimizer state
// and activationsInFlight(stage 0) / P of the activations (the recompute working set once).
// Example: P 8, m 64, 1F1B: per-micro-batch time x 71/512, step work x 1/8, static memory x 1/8,
// activations x 8/8. Uneven stages make the memory an estimate; the plan's evaluation is exact.

#include "engine/cluster/mesh.h"
#include "engine/cost/cost_terms.h"
#include "engine/cost/step_settings.h"

namespace shardscope {

/// The factors for one mesh and settings; all 1 without a pipe axis of 2 or more stages.
struct PipelineWeights {
    double time = 1;          ///< of what runs every micro-batch (summed over the step)
    double stepTime = 1;      ///< of what runs once per step
    double staticMemory = 1;
    double activations = 1;

    /// The weighted time of an op.
    double opTime(const OpCost& c) const {
        double once = c.optimizer;
        for (const CollectiveCost& cc : c.collectives)
            if (cc.phase == Phase::Step)
                once += cc.exposedTime();
        return time * (c.totalTime() - once) + stepTime * once;
    }

    /// The weighted memory of an op: its terms, with `workspace` (the recompute working set, part of
    /// its activations) counted once.
    double memory(const MemoryTerms& m, double workspace) const {
        return staticMemory * (m.parameters + m.gradients + m.optimizer) + activations * (m.activations - workspace) +
               workspace;
    }
    bool operator==(const PipelineWeights&) const = default;
};

/// The weights of a step under `settings` on `mesh`.
PipelineWeights pipelineWeights(const Mesh& mesh, const StepSettings& settings);

} // namespace shardscope
