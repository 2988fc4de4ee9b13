#include "engine/bench/bench_suite.h"

#include "engine/bench/bench_common.h"

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/search/search.h"
#include "engine/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

namespace shardscope::bench {

namespace {

BenchRow runCase(const BenchScenario& k, const BenchTarget& target, int runs) {
    const SearchRequest r = requestOf(k);
    double medianSeconds = 0, solveSeconds = 0;
    const auto last = searchRepeatedly(r, runs, medianSeconds, &solveSeconds);
    BenchRow row;
    row.solveSeconds = solveSeconds;
    row.name = k.name;
    row.model = k.model;
    for (const std::string& s : k.sets)
        row.model += " " + s;
    row.devices = r.cluster->deviceCount();
    row.algorithm = k.algorithm;
    row.mesh = k.mesh;
    recordSearch(row, *last, *r.graph, runs, medianSeconds);
    // The floor in the search's own settings (its micro-batch graph, its recomputation; ZeRO stages
    // only where the search could choose them).
    std::optional<BaselineFigures> baseline;
    const auto chosen = last->graph ? last->graph : r.graph;
    StepSettings settings = last->plan.settings;
    settings.zeroStage = 0;
    bestBaselineOn(chosen, r.cluster, last->plan.mesh, settings, baseline, !k.settingsOpen);
    if (baseline)
        simulateBaseline(*baseline, r.cluster);
    row.baselineStepTime = baseline ? baseline->stepTime : 0;
    row.target = target;
    return row;
}

/// Time from requesting stop to the search returning, on a search that runs for seconds.
BenchRow cancelLatency(int runs) {
    const auto g = std::make_shared<const Graph>(loadModel(ModelRequest{"gpt3-175b", {}, std::nullopt}, 1));
    const auto c = std::make_shared<const Cluster>(clusterPreset("dgx-a100", 128));
    std::vector<double> latencies;
    std::shared_ptr<const SearchResult> last;
    for (int i = 0; i < runs; ++i) {
        std::stop_source source;
        SearchRequest r;
        r.graph = g;
        r.cluster = c;
        r.algorithm = SearchAlgorithm::Pase; // unfolded: seconds of work to interrupt
        r.threads = 1;
        r.stop = source.get_token();
        std::chrono::steady_clock::time_point stopped;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            stopped = std::chrono::steady_clock::now();
            source.request_stop();
        });
        last = search(r);
        const auto returned = std::chrono::steady_clock::now();
        stopper.join();
        latencies.push_back(std::chrono::duration<double>(returned - stopped).count());
    }
    BenchRow row;
    row.name = "cancel latency";
    row.model = "gpt3-175b";
    row.devices = c->deviceCount();
    row.algorithm = "pase";
    row.mesh = "auto";
    row.chosenMesh = last->plan.mesh.toString();
    row.runs = runs;
    row.medianSeconds = median(latencies);
    row.ops = int(g->ops().size());
    row.stepTime = last->stepTime();
    row.feasible = last->evaluation->feasible;
    row.target = BenchTarget::timeUnder("stop returns within 0.1 s with a valid plan", 0.1);
    return row;
}

/// Time to simulate one step of gpt3-175b under megatron-sp + ZeRO-3 on `nodes` DGX A100 nodes.
BenchRow simulationTime(int nodes, int runs) {
    const Graph g = loadModel(ModelRequest{"gpt3-175b", {}, std::nullopt}, 1);
    const Cluster c = clusterPreset("dgx-a100", nodes);
    const Mesh mesh = Mesh::parse("data=" + std::to_string(nodes) + ",model=8");
    const Plan plan = baselinePlan(g, mesh, "megatron-sp+zero3", {});
    const CostModel model(g, c, mesh, plan.settings);
    std::vector<double> times;
    std::shared_ptr<const SimResult> last;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        last = simulate(model, plan, SimOptions{});
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    BenchRow row;
    row.name = "simulate, " + std::to_string(c.deviceCount()) + " GPUs";
    row.model = "gpt3-175b";
    row.devices = c.deviceCount();
    row.algorithm = "sim";
    row.mesh = row.chosenMesh = mesh.toString();
    row.runs = runs;
    row.medianSeconds = median(times);
    row.states = double(last->eventCount());
    row.ops = int(g.ops().size());
    row.stepTime = last->stepTime;
    row.feasible = last->peakMemory <= c.device.memoryBytes;
    if (c.deviceCount() == 1024)
        row.target = BenchTarget::timeUnder("under 2 s", 2.0);
    return row;
}

} // namespace

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void recordSearch(BenchRow& row, const SearchResult& last, const Graph& g, int runs, double medianSeconds) {
    row.chosenMesh = last.plan.mesh.toString();
    row.runs = runs;
    row.medianSeconds = medianSeconds;
    row.states = last.report.statesExplored;
    row.ops = int(g.ops().size());
    row.stepTime = last.stepTime();
    row.feasible = last.evaluation->feasible;
}

void bestBaselineOn(const std::shared_ptr<const Graph>& g, const std::shared_ptr<const Cluster>& c, const Mesh& mesh,
                    const StepSettings& settings,
                    std::optional<BaselineFigures>& into, bool withoutZero) {
    for (const BaselineEntry& entry : baselineRegistry()) {
        if (withoutZero && entry.spec.find("zero") != std::string::npos)
            continue;
        if (withoutZero && entry.spec == "fsdp")
            continue;
        Plan plan;
        try {
            plan = baselinePlan(*g, mesh, entry.spec, settings);
        } catch (const std::exception&) {
            continue; // this mesh cannot express it
        }
        const auto e = evaluate(CostModel(g, c, mesh, plan.settings), plan);
        if (!into || (e->feasible && !into->feasible) || (e->feasible == into->feasible && e->stepTime < into->stepTime))
            into = BaselineFigures{entry.spec + " @ " + mesh.toString(), e->stepTime, e->feasible, plan, g};
    }
}

void simulateBaseline(BaselineFigures& b, const std::shared_ptr<const Cluster>& cluster) {
    if (!b.graph)
        return;
    SimOptions options;
    options.overlap = b.plan.settings.overlap;
    options.timelines = false;
    b.stepTime = simulate(CostModel(b.graph, cluster, b.plan.mesh, b.plan.settings), b.plan, options)->stepTime;
}

std::shared_ptr<const SearchResult> searchRepeatedly(const SearchRequest& request, int runs, double& medianSeconds,
                                                     double* medianSolveSeconds) {
    std::vector<double> times, solves;
    std::shared_ptr<const SearchResult> last;
    for (int i = 0; i < runs; ++i) {
        last = search(request);
        times.push_back(last->report.searchSeconds);
        solves.push_back(last->report.solveSeconds);
    }
    medianSeconds = median(times);
    if (medianSolveSeconds)
        *medianSolveSeconds = median(solves);
    return last;
}

SearchRequest requestOf(const BenchScenario& k) {
    const ModelRequest model{k.model, k.sets, k.batch};
    SearchRequest r;
    r.graph = std::make_shared<const Graph>(loadModel(model, 1));
    r.cluster = std::make_shared<const Cluster>(clusterPreset(k.cluster, k.nodes));
    if (k.mesh != "auto")
        r.mesh = Mesh::parse(k.mesh);
    r.algorithm = parseAlgorithm(k.algorithm);
    r.threads = 1;
    if (k.settingsOpen) {
        const BuilderModel b = *resolveBuilder(model);
        r.open = OpenSettings::all();
        r.family = GraphFamily{b.params.batch, [b](int m) { return buildModel(b.family, b.params, m, b.name); }};
    }
    return r;
}

std::vector<std::pair<BenchScenario, BenchTarget>> speedScenarios(bool quick) {
    const BenchTarget underOne = BenchTarget::timeUnder("search under 1 s", 1.0);
    std::vector<std::pair<BenchScenario, BenchTarget>> cases{
        {{"gpt3-175b, 1024 GPUs, B 1536, auto", "gpt3-175b", {}, std::nullopt, "dgx-a100", 128}, underOne},
        // Llama 3 405B's shape (Dubey et al. 2024, Table 3: 126 layers, hidden 16,384, 128 heads, 8 KV
        // heads, FFN 53,248, vocabulary 128,256) at its 16M-token batch of 8K sequences on 16,384 H100s.
        {{"llama3-405b shape, 16384 H100s, B 2048, auto", "llama",
          {"layers=126", "hidden=16384", "heads=128", "kv_heads=8", "ffn=53248", "vocab=128256", "seq=8192", "batch=2048"},
          std::nullopt, "dgx-h100", 2048},
         BenchTarget::timeUnder("search under 2 s", 2.0)},
        // DeepSeek-V3 from its config.json (61 layers, 256 routed experts, top-8) at 4096 sequences of
        // 4096 tokens on 2048 H100s.
        {{"deepseek-v3, 2048 H100s, B 4096, auto", SHARDSCOPE_SAMPLES_DIR "/models/hf-deepseek-v3/config.json",
          {"seq=4096"}, 4096, "dgx-h100", 256, "auto", "auto", true, false},
         underOne},
    };
    // Batch 32: the fastest plan fits at every depth, so the rows measure folding alone (at batch 64
    // the 192-layer stack overflows and a memory sweep joins the search).
    for (int layers : {24, 48, 96, 192})
        for (const char* algo : {"tapas", "pase"}) {
            if (quick && layers == 192 && std::string(algo) == "pase")
                continue;
            const bool tapas = std::string(algo) == "tapas";
            BenchTarget target =
                BenchTarget::described(tapas ? "tapas solves grow < 1.5x from 24 to 192 layers" : "contrast");
            if (tapas && layers == 192) {
                target.growthOver = "gpt fixed width, 24 layers";
                target.maxGrowth = 1.5;
            }
            cases.push_back({{"gpt fixed width, " + std::to_string(layers) + " layers", "gpt",
                              {"layers=" + std::to_string(layers), "hidden=2048", "heads=16", "seq=1024", "batch=32"},
                              std::nullopt, "dgx-a100", 8, "data=8,model=8", algo, false},
                             target});
        }
    cases.push_back({{"inception-v3-like, 64 GPUs", "inception-v3", {}, std::nullopt, "dgx-a100", 8, "data=16,model=4",
                      "pase", false},
                     BenchTarget::timeUnder("under 2 s (PaSE paper: over 3 min)", 2.0)});
    cases.push_back({{"inception-v3-like, 64 GPUs, auto", "inception-v3", {}, std::nullopt, "dgx-a100", 8}, underOne});
    return cases;
}

std::vector<BenchScenario> countableScenarios() {
    std::vector<BenchScenario> out = qualityScenarios();
    for (const auto& [k, target] : speedScenarios(false))
        out.push_back(k);
    return out;
}

namespace {

/// Sets each row's index into countableScenarios(): the scenario of its name (and, for speed rows
/// that share a name, its algorithm).
void numberScenarios(std::vector<BenchRow>& rows) {
    const std::vector<BenchScenario> all = countableScenarios();
    const std::size_t quality = qualityScenarios().size();
    for (BenchRow& r : rows)
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].name == r.name && (i < quality || all[i].algorithm == r.algorithm)) {
                r.scenario = int(i);
                break;
            }
}

} // namespace

std::vector<BenchRow> runBench(bool quick, BenchSuite suite, const std::function<void(const std::string&)>& log,
                               const std::string& only) {
    if (suite == BenchSuite::Quality) {
        std::vector<BenchRow> rows = runPlanQuality(quick ? 1 : 5, log, only);
        markMisses(rows);
        numberScenarios(rows);
        return rows;
    }
    auto selected = [&](const std::string& name) { return name.find(only) != std::string::npos; };
    const int runs = quick ? 3 : 7;
    std::vector<BenchRow> rows;
    for (const auto& [k, target] : speedScenarios(quick)) {
        if (!selected(k.name))
            continue;
        if (log)
            log(k.name + " (" + k.algorithm + ")");
        rows.push_back(runCase(k, target, runs));
    }
    if (selected("cancel latency")) {
        if (log)
            log("cancel latency");
        rows.push_back(cancelLatency(quick ? 3 : 5));
    }
    for (int nodes : {1, 8, 128}) {
        if (!selected("simulate, " + std::to_string(nodes * 8) + " GPUs"))
            continue;
        if (log)
            log("simulate on " + std::to_string(nodes * 8) + " GPUs");
        rows.push_back(simulationTime(nodes, runs));
    }
    if (suite == BenchSuite::All)
        for (BenchRow& row : runPlanQuality(quick ? 1 : 5, log, only))
            rows.push_back(std::move(row));
    markMisses(rows);
    numberScenarios(rows);
    return rows;
}

} // namespace shardscope::bench
