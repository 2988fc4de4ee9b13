#pragma once
// A scenario: the model, cluster and plan that evaluate (CLI and GUI) starts from.

#include "engine/cluster/cluster.h"
#include "engine/cost/step_settings.h"
#include "engine/io/model_file.h"
#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <memory>
#include <optional>
#include <string>

namespace shardscope {

/// What the user asked for on the command line or in the open dialog.
struct ScenarioRequest {
    ModelRequest model;
    std::string cluster;                  ///< preset name or *.cluster.json
    std::optional<int> nodes;
    std::string mesh;                     ///< "data=16,model=8"; empty = one data axis over all devices
    std::string strategy = "dp";          ///< baseline spec or *.plan.json
    std::optional<int> microbatches;
    std::optional<Recompute> recompute;
    std::optional<AttentionKernel> attention;
    std::optional<Precision> precision;   ///< StepSettings::precision
    std::optional<bool> overlap;          ///< StepSettings::overlap; replaces a plan file's (a runtime flag)
    std::optional<TpOverlap> tpOverlap;   ///< StepSettings::tpOverlap; the same
    std::optional<LossKernel> loss;       ///< StepSettings::loss; the same
    std::optional<double> bucketBytes;    ///< StepSettings::bucketBytes; the same
    std::optional<OptimizerKind> optimizer;
    std::optional<int> zeroStage;         ///< 0-3; with a baseline, the same as naming it "+zeroN"
    std::optional<Schedule> schedule;     ///< StepSettings::schedule (a mesh with a pipe axis)
    std::optional<int> virtualStages;     ///< StepSettings::virtualStages
    std::string stages;                   ///< "0-11,12-23,...": blocks per model chunk; empty: balanced
};

/// A loaded model, cluster and plan that agree with each other.
struct Scenario {
    ModelSource source;   ///< the model as read, to build it again for another batch or micro-batch count
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const Cluster> cluster;
    Plan plan;
};

/// A model and a plan file read for it.
struct ModelWithPlan {
    std::shared_ptr<const Graph> graph;
    Plan plan;
};

/// Reads the plan file `planPath` once and builds `model` with the plan's micro-batch count, then
/// matches the plan to it. Throws InputError naming the file, field or op.
ModelWithPlan loadPlanWithModel(const ModelSource& model, const std::string& planPath);

/// Loads and checks everything: the mesh fits the cluster, the plan fits the model. A plan file brings
/// its own mesh and settings; a --mesh or setting that contradicts it is an error.
/// Throws InputError naming the problem.
Scenario loadScenario(const ScenarioRequest& request);

} // namespace shardscope
