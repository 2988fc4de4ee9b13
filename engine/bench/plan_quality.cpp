// The plan-quality suite: does the search beat the expert's whole toolbox on real training problems?

#include "engine/bench/bench_suite.h"

#include "engine/bench/bench_common.h"

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/search/search.h"

#include <algorithm>
#include <limits>

namespace shardscope::bench {

namespace {

struct QualityCase {
    std::string model;
    std::string cluster;
    int nodes;
    int batch;
};

/// The best baseline by full evaluation: every registry entry on every candidate mesh with every
/// recomputation and micro-batch count the search may use.
BaselineFigures bestBaseline(const BuilderModel& b, const std::shared_ptr<const Cluster>& c) {
    std::optional<BaselineFigures> best;
    for (const Mesh& mesh : candidateMeshes(c->deviceCount(), c->devicesPerNode())) {
        const auto data = mesh.axisOf(AxisRole::Data);
        const SettingsSpace space =
            settingsSpace(StepSettings{}, OpenSettings::all(), b.params.batch, data ? mesh.size(*data) : 1);
        for (int m : space.microbatches) {
            const auto g = std::make_shared<const Graph>(buildModel(b.family, b.params, m, b.name));
            for (Recompute r : space.recomputes) {
                StepSettings s;
                s.microbatches = m;
                s.recompute = r;
                std::optional<BaselineFigures> here;
                bestBaselineOn(g, c, mesh, s, here);
                if (here && (!best || (here->feasible && !best->feasible) ||
                             (here->feasible == best->feasible && here->stepTime < best->stepTime))) {
                    best = here;
                    best->name += " " + std::string(recomputeName(r)) + " m" + std::to_string(m);
                }
            }
        }
    }
    if (best && !best->feasible)
        best->name += " (does not fit)";
    return best.value_or(BaselineFigures{"-", 0, false});
}

BenchRow runQualityCase(const QualityCase& k, int runs) {
    const ModelRequest request{k.model, {}, k.batch};
    const BuilderModel b = *resolveBuilder(request);
    const auto g = std::make_shared<const Graph>(buildModel(b.family, b.params, 1, b.name));
    const auto c = std::make_shared<const Cluster>(clusterPreset(k.cluster, k.nodes));
    SearchRequest r;
    r.graph = g;
    r.cluster = c;
    r.open = OpenSettings::all();
    r.family = GraphFamily{b.params.batch, [b](int m) { return buildModel(b.family, b.params, m, b.name); }};
    r.threads = 1;
    double medianSeconds = 0;
    const auto last = searchRepeatedly(r, runs, medianSeconds);
    BenchRow row;
    row.name = k.model + ", " + k.cluster + " x" + std::to_string(k.nodes) + ", B " + std::to_string(k.batch);
    row.model = k.model;
    row.devices = c->deviceCount();
    row.algorithm = last->report.chosenBy();
    row.mesh = "auto";
    recordSearch(row, *last, *g, runs, medianSeconds);
    const BaselineFigures baseline = bestBaseline(b, c);
    row.baselineName = baseline.name;
    row.baselineStepTime = baseline.stepTime;
    row.baselineFeasible = baseline.feasible;
    const StepSettings& s = last->plan.settings;
    row.settings = "zero" + std::to_string(s.zeroStage) + " " + std::string(recomputeName(s.recompute)) + " m" +
                   std::to_string(s.microbatches);
    row.peakMemory = last->evaluation->peakMemory;
    row.capacity = c->device.memoryBytes;
    row.optimalityGap = last->report.optimalityGap;
    row.target = "searched / best baseline <= 1.00, fits, search under 1 s";
    return row;
}

} // namespace

std::vector<BenchRow> runPlanQuality(int runs, const std::function<void(const std::string&)>& log) {
    const std::vector<QualityCase> cases{
        {"gpt3-1.3b", "dgx-a100", 4, 512},    {"llama2-7b", "dgx-a100", 8, 512},
        {"llama2-70b", "dgx-h100", 32, 1024}, {"llama2-70b", "dgx-h100", 64, 1024},
        {"mixtral-8x7b", "dgx-h100", 8, 512}, {"gpt3-175b", "dgx-h100", 64, 1536},
        {"resnet50", "pcie-8x", 2, 1024},     {"llama2-7b", "pcie-8x", 1, 64},
        {"gpt3-1.3b", "dgx-h100", 2, 512},    {"mixtral-8x7b", "dgx-a100", 16, 1024},
    };
    std::vector<BenchRow> rows;
    for (const QualityCase& k : cases) {
        if (log)
            log("plan quality: " + k.model + " on " + k.cluster + " x" + std::to_string(k.nodes));
        rows.push_back(runQualityCase(k, runs));
    }
    return rows;
}

} // namespace shardscope::bench
