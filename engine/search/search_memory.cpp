#include "engine/search/search_memory.h"

#include "engine/search/pipeline_candidates.h"

#include <algorithm>

namespace shardscope {

namespace {

/// `s` with the settings a search may choose (ZeRO stage, recomputation, micro-batches, schedule)
/// cleared: what must agree for two searches to price a combination alike.
StepSettings fixedPart(StepSettings s) {
    s.zeroStage = 0;
    s.recompute = Recompute::None;
    s.microbatches = 1;
    s.schedule = Schedule::OneFOneB;
    s.virtualStages = 1;
    return s;
}

/// True when `later` allows no strategy `earlier` does not: every axis pinned there is pinned here
/// to the same factor.
bool atLeastAsTight(const std::optional<StrategyPin>& earlier, const std::optional<StrategyPin>& later) {
    if (!earlier)
        return true;
    if (!later || later->factorOfAxis.size() != earlier->factorOfAxis.size())
        return false;
    for (std::size_t a = 0; a < earlier->factorOfAxis.size(); ++a)
        if (earlier->factorOfAxis[a] && earlier->factorOfAxis[a] != later->factorOfAxis[a])
            return false;
    return true;
}

} // namespace

bool SearchMemory::carriesOver(const std::shared_ptr<const Graph>& g, const std::shared_ptr<const Cluster>& c,
                               const StepSettings& s, const std::vector<std::optional<StrategyPin>>& later,
                               const std::vector<int>& cut, const std::vector<int>& stages) const {
    if (std::find(graphs.begin(), graphs.end(), g) == graphs.end() || c != cluster ||
        !(fixedPart(s) == fixedPart(settings)))
        return false;
    if (!stageCut.empty() && stageCut != cut)
        return false;
    for (std::size_t b = 0; b < blockStages.size(); ++b)
        if (blockStages[b] >= 0 && (b >= stages.size() || stages[b] != blockStages[b]))
            return false;
    for (std::size_t v = 0; v < pins.size(); ++v)
        if (!atLeastAsTight(pins[v], v < later.size() ? later[v] : std::nullopt))
            return false;
    return true;
}

std::string meshKey(const Mesh& mesh, const StepSettings& schedule) {
    return mesh.pipelineStages() > 1 ? mesh.toString() + " " + scheduleLabel(schedule) : mesh.toString();
}

} // namespace shardscope
