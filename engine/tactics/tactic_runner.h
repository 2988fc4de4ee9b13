#pragma once
// Applying a tactic script (docs/DESIGN.md, Tactics): each tactic fixes some shardings, propagation
// settles what follows, and after each step the partial plan (undecided axes split nothing) is
// costed, simulated and compared with the step before.

#include "engine/evaluation/evaluation.h"
#include "engine/sim/simulator.h"
#include "engine/tactics/partial_plan.h"

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

/// What to apply the tactics to.
struct TacticRequest {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const Cluster> cluster;
    Mesh mesh;
    StepSettings settings;
    std::vector<Tactic> tactics;
    SimOptions simulation;                      ///< how each step is simulated
    int threads = 0;                            ///< for auto's search
    std::function<void(double fraction, const std::string& what)> progress;
    std::stop_token stop;
};

/// The plan after one tactic.
struct TacticStage {
    Plan plan;                                  ///< undecided axes split nothing
    std::shared_ptr<const CostModel> model;     ///< the plan's cost model
    std::shared_ptr<const Evaluation> evaluation; ///< evaluate(*model, plan)
    TacticStep step;                            ///< the figures (also in the final plan's tacticSteps)
    std::vector<int> decidedAxes;               ///< per op, how many axes are decided
};

/// Everything the tactics did.
struct TacticRun {
    std::vector<TacticStage> stages;            ///< one per tactic, in order
    Plan plan;                                  ///< the last stage's plan, with the tactics and steps recorded
    std::shared_ptr<const CostModel> model;     ///< the plan's cost model
    std::shared_ptr<const Evaluation> evaluation; ///< evaluate(*model, plan)
    std::vector<TensorDecision> tensors;        ///< every tensor a tactic fixed, with the tactic
    bool cancelled = false;                     ///< stopped before the last tactic
};

/// Applies the tactics in order. Throws InputError naming the tactic for an axis the mesh lacks, an
/// unknown algorithm, or a model the mesh does not fit.
std::shared_ptr<const TacticRun> runTactics(const TacticRequest& request);

} // namespace shardscope
