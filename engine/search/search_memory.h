#pragma once
// What a finished search proved, kept for the next search of the same problem after an edit
// (incremental re-search, docs/DESIGN.md "Search"): per searched mesh and schedule, the lower bounds it
// found on the step of every plan of a settings combination (MeshSearch's search bounds: solved
// optima and the bounds that pruned the rest). A lock, a pin or a fixed stage cut only takes choices
// away, so every such bound still holds after the edit: the re-search starts from them, and builds
// tables and solves only where a bound could still beat the best plan that fits.

#include "engine/cost/step_settings.h"
#include "engine/ir/graph.h"
#include "engine/sharding/strategy.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

class Cluster;

/// The bounds of one search and what they were found under. Immutable once built.
struct SearchMemory {
    /// The graphs it searched: the request's and each micro-batch count's it built (any of them may
    /// be the graph of the plan a re-search starts from).
    std::vector<std::shared_ptr<const Graph>> graphs;
    std::shared_ptr<const Cluster> cluster;
    StepSettings settings;                         ///< the request's fixed settings
    std::vector<std::optional<StrategyPin>> pins;  ///< per op, the locks and pins it kept
    std::vector<int> stageCut;                     ///< the fixed cut it kept, or empty
    std::vector<int> blockStages;                  ///< the locked stages it kept, or empty
    /// Per mesh and schedule (meshKey()), (settings, lower bound on the analytic step of every plan of
    /// those settings there and of every setting slowerOrEqual() to them; MeshSearch::dominated()).
    std::map<std::string, std::vector<std::pair<StepSettings, double>>> bounds;

    /// True when every plan a search of `graph`, `cluster`, `settings` under `pins`, `stageCut` and
    /// `blockStages` may answer with was a plan this search weighed: the same graph, cluster and fixed
    /// settings (`graph` one of graphs), every pin kept here kept there at least as tightly, no stage
    /// constraint dropped.
    /// Example: a search, then the same with one more op locked: true; with a lock removed: false.
    bool carriesOver(const std::shared_ptr<const Graph>& graph, const std::shared_ptr<const Cluster>& cluster,
                     const StepSettings& settings, const std::vector<std::optional<StrategyPin>>& pins,
                     const std::vector<int>& stageCut, const std::vector<int>& blockStages) const;
};

/// The key of a mesh searched under a schedule in SearchMemory::bounds: "pipe=4,data=8,model=4 interleaved x 2".
std::string meshKey(const Mesh& mesh, const StepSettings& schedule);

} // namespace shardscope
