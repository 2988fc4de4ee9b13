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

/// The best baseline by full evaluation: every registry entry on every candidate mesh (the expert
/// meshes too) with every recomputation and micro-batch count the search may use.
BaselineFigures bestBaseline(const BuilderModel& b, const std::shared_ptr<const Cluster>& c) {
    std::optional<BaselineFigures> best;
    std::vector<Mesh> meshes = candidateMeshes(c->deviceCount(), c->scaleUpSize());
    for (Mesh& m : expertMeshes(buildModel(b.family, b.params, 1, b.name), c->deviceCount()))
        meshes.push_back(std::move(m));
    for (const Mesh& mesh : meshes) {
        const SettingsSpace space =
            settingsSpace(StepSettings{}, OpenSettings::all(), b.params.batch, mesh.dataParallelDegree());
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
    if (!best)
        return BaselineFigures{"-", 0, false, {}, nullptr};
    if (!best->feasible)
        best->name += " (does not fit)";
    // Both sides of the comparison simulated: the best baseline by its analytic step, then its
    // simulated step (the search's answer is its simulated step too).
    simulateBaseline(*best, c);
    return *best;
}

/// The edit a researcher makes after a search: the first parameterised contraction of the middle repeated
/// block locked to a neighbouring strategy (one mesh axis moved to another factor; the first such, else
/// the first other valid one); the plan's other ops stay as searched. Nothing when the graph has no
/// repeated blocks or the op no other strategy.
std::optional<std::pair<Plan, std::string>> lockedEdit(const SearchResult& searched) {
    const Graph& g = *searched.graph;
    const auto blocks = findRepeatedBlocks(g);
    if (!blocks)
        return std::nullopt;
    for (OpId o : blocks->blocks[blocks->blocks.size() / 2]) {
        const Op& op = g.op(o);
        const bool weighted = std::any_of(op.inputs.begin(), op.inputs.end(), [&](TensorId t) {
            return g.tensor(t).role == TensorRole::Parameter;
        });
        if (op.kind != OpKind::MatMul || !weighted)
            continue;
        Plan plan = searched.plan;
        OpChoice& choice = plan.ops[o.index()];
        std::optional<OpStrategy> pick;
        for (const OpStrategy& s : enumerateStrategies(op, plan.mesh)) {
            if (s == choice.strategy)
                continue;
            int moved = 0;
            bool split = true;
            for (std::size_t a = 0; a < s.factorOfAxis.size(); ++a)
                if (s.factorOfAxis[a] != choice.strategy.factorOfAxis[a]) {
                    ++moved;
                    split = split && s.factorOfAxis[a] >= 0;
                }
            if (moved == 1 && split) {
                pick = s;
                break;
            }
            if (!pick)
                pick = s;
        }
        if (!pick)
            continue;
        choice.strategy = *pick;
        choice.locked = true;
        return std::make_pair(plan, op.name + " locked to " + pick->toString(op.rule, plan.mesh));
    }
    return std::nullopt;
}

/// Re-search around the lock of `edit` on its mesh, from `searched`'s memory, as the window does,
/// `runs` times; then once from scratch. Fills the row's re-search figures.
void timeReSearch(BenchRow& row, const SearchRequest& first, const SearchResult& searched, int runs) {
    const auto edit = lockedEdit(searched);
    if (!edit)
        return;
    SearchRequest r = first;
    r.mesh = edit->first.mesh;
    r.locks.assign(edit->first.ops.size(), std::nullopt);
    for (std::size_t v = 0; v < edit->first.ops.size(); ++v)
        if (edit->first.ops[v].locked)
            r.locks[v] = edit->first.ops[v].strategy;
    r.previous = searched.memory;
    r.start = edit->first;
    double seconds = 0;
    const auto last = searchRepeatedly(r, runs, seconds);
    row.edit = edit->second;
    row.reSearchSeconds = seconds;
    row.reSearchStep = last->stepTime();
    row.reSearchIncremental = last->report.incremental;
    // The same edit searched from scratch: what the memory saved, and the same answer.
    r.previous.reset();
    r.start.reset();
    double scratch = 0;
    const auto fresh = searchRepeatedly(r, 1, scratch);
    row.scratchSeconds = scratch;
    row.scratchStep = fresh->stepTime();
}

BenchRow runQualityCase(const BenchScenario& k, int runs) {
    const BuilderModel b = *resolveBuilder(ModelRequest{k.model, k.sets, k.batch});
    const SearchRequest r = requestOf(k);
    const auto& g = r.graph;
    const auto& c = r.cluster;
    double medianSeconds = 0;
    const auto last = searchRepeatedly(r, runs, medianSeconds);
    BenchRow row;
    row.name = k.name;
    row.model = k.model;
    row.devices = c->deviceCount();
    row.algorithm = last->report.chosenBy();
    row.mesh = "auto";
    recordSearch(row, *last, *g, runs, medianSeconds);
    timeReSearch(row, r, *last, runs);
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
    row.target = BenchTarget::timeUnder("searched / best baseline <= 1.00, fits, search under 1 s, re-search after an edit under 0.3 s", 1.0);
    row.target.maxVsBaseline = 1.0;
    row.target.fitsWhenBaselineFits = true;
    row.target.maxReSearchSeconds = 0.3;
    return row;
}

} // namespace

std::vector<BenchScenario> qualityScenarios() {
    const struct {
        const char* model;
        const char* cluster;
        int nodes;
        int batch;
    } cases[] = {
        {"gpt3-1.3b", "dgx-a100", 4, 512},    {"llama2-7b", "dgx-a100", 8, 512},
        {"llama2-70b", "dgx-h100", 32, 1024}, {"llama2-70b", "dgx-h100", 64, 1024},
        {"mixtral-8x7b", "dgx-h100", 8, 512}, {"gpt3-175b", "dgx-h100", 64, 1536},
        {"resnet50", "pcie-8x", 2, 1024},     {"llama2-7b", "pcie-8x", 1, 64},
        {"gpt3-1.3b", "dgx-h100", 2, 512},    {"mixtral-8x7b", "dgx-a100", 16, 1024},
    };
    std::vector<BenchScenario> out;
    for (const auto& k : cases)
        out.push_back(BenchScenario{std::string(k.model) + ", " + k.cluster + " x" + std::to_string(k.nodes) + ", B " +
                                        std::to_string(k.batch),
                                    k.model, {}, k.batch, k.cluster, k.nodes});
    return out;
}

std::vector<BenchRow> runPlanQuality(int runs, const std::function<void(const std::string&)>& log,
                                     const std::string& only) {
    std::vector<BenchRow> rows;
    for (const BenchScenario& k : qualityScenarios()) {
        if (k.name.find(only) == std::string::npos)
            continue;
        if (log)
            log("plan quality: " + k.model + " on " + k.cluster + " x" + std::to_string(k.nodes));
        rows.push_back(runQualityCase(k, runs));
    }
    return rows;
}

} // namespace shardscope::bench
