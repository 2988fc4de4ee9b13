#include "engine/search/fit_advice.h"

#include "engine/cluster/cluster.h"
#include "engine/search/mesh_search.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

namespace shardscope {

namespace {

/// The best baseline over `meshes` with `settings` and `open` on `cluster`, if one fits.
std::optional<CandidatePlan> bestFittingBaseline(const SearchRequest& r, const std::shared_ptr<const Cluster>& cluster,
                                                 const std::vector<Mesh>& meshes, const StepSettings& settings,
                                                 const OpenSettings& open, GraphCache& graphs) {
    SharedBound bound;
    std::optional<CandidatePlan> best;
    for (const Mesh& mesh : meshes) {
        MeshSearchInput in;
        in.cluster = cluster;
        in.graphs = &graphs;
        in.space = settingsSpace(settings, open, r.family ? std::optional<int>(r.family->globalBatch) : std::nullopt,
                                 mesh.dataParallelDegree());
        in.zeroAxes = mesh.dataParallelAxes();
        in.stop = r.stop;
        MeshSearch s(mesh, std::move(in), bound);
        try {
            s.floor();
        } catch (const InputError&) {
            continue; // this micro-batch count or mesh cannot be built
        }
        if (s.best() && s.best()->score.feasible && (!best || preferred(s.best()->score, best->score)))
            best = s.best();
    }
    return best;
}

std::string figures(const CandidatePlan& p, const Cluster& cluster) {
    return *p.baseline + " on " + p.plan.mesh.toString() + " fits: " + formatSeconds(p.score.stepTime) +
           " per step, peak " + formatBytes(p.score.peakMemory) + " of " + formatBytes(cluster.device.memoryBytes);
}

} // namespace

std::vector<std::string> fitAdvice(const SearchRequest& r, const OpenSettings& open, GraphCache& graphs) {
    std::vector<std::string> advice;
    const Cluster& cluster = *r.cluster;
    const std::vector<Mesh> meshes = r.mesh ? std::vector<Mesh>{*r.mesh}
                                            : candidateMeshes(cluster.deviceCount(), cluster.scaleUpSize());
    if (!open.zeroStage)
        for (int z = r.settings.zeroStage + 1; z <= 3 && !r.stop.stop_requested(); ++z) {
            StepSettings s = r.settings;
            s.zeroStage = z;
            if (const auto p = bestFittingBaseline(r, r.cluster, meshes, s, open, graphs)) {
                advice.push_back("ZeRO stage " + std::to_string(z) + ": " + figures(*p, cluster));
                break;
            }
        }
    if (!open.recompute)
        for (Recompute rc : {Recompute::Selective, Recompute::Full}) {
            if (int(rc) <= int(r.settings.recompute) || r.stop.stop_requested())
                continue;
            StepSettings s = r.settings;
            s.recompute = rc;
            if (const auto p = bestFittingBaseline(r, r.cluster, meshes, s, open, graphs)) {
                advice.push_back(std::string(recomputeName(rc)) + " recomputation: " + figures(*p, cluster));
                break;
            }
        }
    if (!open.microbatches && r.family)
        for (int m = r.settings.microbatches + 1, tried = 0; m <= r.family->globalBatch && tried < 12; ++m) {
            if (r.family->globalBatch % m != 0 || r.stop.stop_requested())
                continue;
            ++tried;
            StepSettings s = r.settings;
            s.microbatches = m;
            if (const auto p = bestFittingBaseline(r, r.cluster, meshes, s, open, graphs)) {
                advice.push_back(std::to_string(m) + " micro-batches: " + figures(*p, cluster));
                break;
            }
        }
    // More nodes, with everything else as asked.
    bool found = false;
    for (int k = 2; k <= 64 && cluster.levels.size() >= 2 && !found && !r.stop.stop_requested(); k *= 2) {
        auto grown = std::make_shared<Cluster>(cluster);
        grown->levels.back().size *= k;
        const Cluster& bigger = *grown;
        std::vector<Mesh> scaled;
        if (r.mesh) {
            Mesh m = *r.mesh;
            const auto data = m.axisOf(AxisRole::Data);
            m.axes[data ? data->index() : 0].size *= k;
            scaled.push_back(m);
        } else {
            scaled = candidateMeshes(bigger.deviceCount(), bigger.scaleUpSize());
        }
        if (const auto p = bestFittingBaseline(r, grown, scaled, r.settings, open, graphs)) {
            advice.push_back(std::to_string(k) + "x the nodes (" + std::to_string(bigger.levels.back().size) +
                             " nodes, " + std::to_string(bigger.deviceCount()) + " devices): " + figures(*p, bigger));
            found = true;
        }
    }
    if (advice.empty())
        advice.push_back("no named plan fits with any ZeRO stage, recomputation or micro-batch count tried, nor on "
                         "up to 64x the nodes");
    return advice;
}

} // namespace shardscope
