// The search over pipelined meshes (docs/DESIGN.md, Pipelining; pipeline_candidates.h): the schedules
// and micro-batch counts it tries, its plans against an exhaustive contest of the expert's
// pipelined plans, the folded evaluation it scores them with, and refusals.

#include "shared_copy.h"
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/evaluation/evaluation.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/search/pipeline_candidates.h"
#include "engine/search/search.h"
#include "engine/search/search_problem.h"
#include "engine/util/error.h"

#include <cmath>
#include <limits>

using namespace shardscope;

namespace {

/// A GPT of 8 layers (hidden 1024, sequence 512, 64-word vocabulary) at global batch `batch`.
ModelParams gpt(int batch) {
    ModelParams p;
    p.layers = 8;
    p.seq = 512;
    p.vocab = 64;
    p.batch = batch;
    return p;
}

/// `nodes` DGX A100 nodes cut to `perNode` GPUs each.
Cluster nodes(int count, int perNode) {
    Cluster c = clusterPreset("dgx-a100", count);
    c.levels.front().size = perNode;
    return c;
}

SearchRequest request(const Graph& g, const Cluster& c, const ModelParams& p) {
    SearchRequest r;
    r.graph = sharedCopy(g);
    r.cluster = sharedCopy(c);
    r.open = OpenSettings::all();
    r.family = GraphFamily{p.batch, [p](int m) { return buildModel("gpt", p, m, "gpt"); }};
    r.threads = 1;
    return r;
}

/// A search of the 8-layer GPT with GPT-2's vocabulary (its head about four layers' work) on
/// pipe=4,data=1,model=2 over 4 nodes of 2, 1F1B: owns its graph and cluster.
struct HeadHeavy {
    ModelParams p = [] {
        ModelParams q = gpt(64);
        q.vocab = 50257;
        return q;
    }();
    Graph g = buildModel("gpt", p, 1, "gpt");
    Cluster c = nodes(4, 2);
    SearchRequest r = [this] {
        SearchRequest q = request(g, c, p);
        q.mesh = Mesh::parse("pipe=4,data=1,model=2");
        q.open.schedule = false;
        return q;
    }();
};

} // namespace

class TestPipelineSearch : public QObject {
    Q_OBJECT
private slots:
    void candidatesAreWholeNodeStages() {
        // 4 nodes of 2: pipe 2 and 4 (stages of whole nodes), each data-only or data x model=2.
        std::vector<std::string> names;
        for (const Mesh& m : pipelinedMeshes(8, 2, 8))
            names.push_back(m.toString());
        QCOMPARE(names, (std::vector<std::string>{"pipe=2,data=4", "pipe=2,data=2,model=2", "pipe=4,data=2",
                                                  "pipe=4,data=1,model=2"}));
        QVERIFY(pipelinedMeshes(8, 2, 1).empty()); // one block cannot be cut
        // 8 blocks on 2 stages: 1F1B, then interleaved with the largest V of 4, 3, 2 that deals evenly,
        // or every such V for a mesh the user gave.
        const Mesh two = Mesh::parse("pipe=2,data=4");
        QCOMPARE(int(scheduleChoices(two, {}, true, 8, false).size()), 2);
        QCOMPARE(scheduleChoices(two, {}, true, 8, false)[1].virtualStages, 4);
        QCOMPARE(int(scheduleChoices(two, {}, true, 8, true).size()), 3); // V 4 and 2 (3 does not divide)
        QCOMPARE(int(scheduleChoices(two, {}, false, 8, true).size()), 1);
        QCOMPARE(int(scheduleChoices(Mesh::parse("data=8"), {}, true, 8, true).size()), 1);
    }
    void pipeAxisSplitsNothing() {
        const Graph g = buildModel("gpt", gpt(32), 1, "gpt");
        const Mesh mesh = Mesh::parse("pipe=2,data=2,model=2");
        for (const Op& op : g.ops())
            for (const OpStrategy& s : enumerateStrategies(op, mesh))
                QCOMPARE(s.factorOfAxis[0], -1);
    }
    void searchBeatsEveryExpertPipeline() {
        // On 4 nodes of 2 GPUs, batch 64: every mesh the search tries with a pipe axis, every
        // schedule it may run, every micro-batch count it may pick (micro-batches of 1, 2, 4, 8
        // sequences), every baseline pattern with every ZeRO stage and recomputation, each plan
        // evaluated in full. The search's plan fits and is at least as fast as the fastest that fits.
        const ModelParams p = gpt(64);
        const Graph g = buildModel("gpt", p, 1, "gpt");
        const Cluster c = nodes(4, 2);
        const auto result = search(request(g, c, p));
        QVERIFY(result->evaluation->feasible);
        double best = std::numeric_limits<double>::infinity();
        int contested = 0;
        for (const Mesh& mesh : pipelinedMeshes(8, 2, 8)) {
            const int data = mesh.size(*mesh.find("data"));
            for (const ScheduleChoice& sc : scheduleChoices(mesh, {}, true, 8, false))
                for (int size : {1, 2, 4, 8}) {
                    const int m = p.batch / data / size;
                    if (m < 1 || p.batch % (data * size) != 0 ||
                        (sc.schedule == Schedule::Interleaved && m % mesh.pipelineStages() != 0))
                        continue;
                    const Graph gm = buildModel("gpt", p, m, "gpt");
                    for (const std::string& pattern : baselinePatterns())
                        for (int zero = 0; zero <= 3; ++zero)
                            for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
                                StepSettings s;
                                s.microbatches = m;
                                s.recompute = r;
                                s.schedule = sc.schedule;
                                s.virtualStages = sc.virtualStages;
                                Plan plan;
                                try {
                                    plan = baselinePlan(gm, mesh, baselineSpec(pattern, zero), s);
                                } catch (const InputError&) {
                                    continue; // no model axis
                                }
                                const auto e = evaluate(CostModel(gm, c, mesh, plan.settings), plan);
                                ++contested;
                                if (e->feasible)
                                    best = std::min(best, e->stepTime);
                            }
                }
        }
        QVERIFY(contested > 500);
        QVERIFY2(result->evaluation->stepTime <= best * (1 + 1e-9),
                 qPrintable(QStringLiteral("search %1 s, best expert pipeline %2 s")
                                .arg(result->evaluation->stepTime)
                                .arg(best)));
    }
    void foldedEvaluationIsTheFullOne() {
        // A pipelined plan whose blocks 2.. repeat block 1 evaluates the same priced once per block.
        const ModelParams p = gpt(64);
        const Graph g = buildModel("gpt", p, 8, "gpt");
        const Mesh mesh = Mesh::parse("pipe=2,data=2,model=2");
        const Cluster c = nodes(4, 2);
        StepSettings s;
        s.microbatches = 8;
        s.schedule = Schedule::Interleaved;
        s.virtualStages = 2;
        const Plan plan = baselinePlan(g, mesh, "megatron-sp+zero1", s);
        const CostModel model(g, c, mesh, plan.settings);
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks && blocks->count() == 8);
        const auto full = evaluate(model, plan), folded = evaluate(model, plan, &*blocks);
        QCOMPARE(folded->stepTime, full->stepTime);
        QCOMPARE(folded->peakMemory, full->peakMemory);
        QCOMPARE(folded->pipeline.bubbleFraction, full->pipeline.bubbleFraction);
        // Scoring copies blocks 3.. from block 2 whole, op and edge costs: every op's report, and so the
        // step, as the full evaluation has them; pipelined and not.
        for (const char* m : {"pipe=2,data=2,model=2", "data=4,model=2"}) {
            const Mesh on = Mesh::parse(m);
            const Plan p2 = baselinePlan(g, on, "megatron-sp+zero1", on.pipelineStages() > 1 ? s : StepSettings{});
            const CostModel priced(g, c, on, p2.settings);
            const auto whole = evaluate(priced, p2);
            const auto scored = evaluate(priced, p2, &*blocks, EvaluationDetail::Score);
            QCOMPARE(scored->stepTime, whole->stepTime);
            QCOMPARE(scored->peakMemory, whole->peakMemory);
            for (std::size_t o = 0; o < whole->perOp.size(); ++o) {
                QCOMPARE(scored->perOp[o].op, whole->perOp[o].op);
                QCOMPARE(scored->perOp[o].collectives.size(), whole->perOp[o].collectives.size());
                QCOMPARE(scored->perOp[o].commTime, whole->perOp[o].commTime);
                QCOMPARE(scored->perOp[o].computeTime, whole->perOp[o].computeTime);
            }
        }
    }
    void theSearchCutsWhereTheStagesBalance() {
        // GPT-2's vocabulary makes the head about four layers' work (tst_stage_cuts): on pipe=4 over
        // 4 nodes of 2 the balanced cut leaves the last stage slowest. The search chooses a cut with
        // fewer blocks there and is faster than the same search held to the balanced cut.
        HeadHeavy h;
        SearchRequest& r = h.r;
        const auto chosen = search(r);
        r.stageCut = {2, 2, 2, 2};
        const auto balanced = search(r);
        QCOMPARE(balanced->plan.pipeline.chunkBlocks, (std::vector<int>{2, 2, 2, 2}));
        QVERIFY(balanced->plan.pipeline.locked);
        QVERIFY(!chosen->plan.pipeline.locked);
        QVERIFY(chosen->plan.pipeline.chunkBlocks.back() < 2);
        QVERIFY2(chosen->evaluation->stepTime < 0.97 * balanced->evaluation->stepTime,
                 qPrintable(QStringLiteral("%1 vs %2").arg(chosen->evaluation->stepTime).arg(balanced->evaluation->stepTime)));
        // The plan's evaluation is that of its cut (search() re-evaluates the plan it returns).
        const CostModel model(*chosen->graph, h.c, chosen->plan.mesh, chosen->plan.settings);
        QCOMPARE(evaluate(model, chosen->plan)->stepTime, chosen->evaluation->stepTime);
    }
    void aFixedCutStaysAndFixesTheVirtualStages() {
        const ModelParams p = gpt(64);
        const Graph g = buildModel("gpt", p, 1, "gpt");
        const Cluster c = nodes(4, 2);
        SearchRequest r = request(g, c, p);
        r.mesh = Mesh::parse("pipe=2,data=2,model=2");
        r.stageCut = {1, 3, 3, 1}; // 4 chunks on 2 stages: interleaved x 2
        const auto result = search(r);
        QCOMPARE(result->plan.pipeline.chunkBlocks, r.stageCut);
        QCOMPARE(result->plan.settings.schedule, Schedule::Interleaved);
        QCOMPARE(result->plan.settings.virtualStages, 2);
        r.stageCut = {1, 3, 3};
        QVERIFY_THROWS_EXCEPTION(InputError, search(r));
        r.stageCut = {4, 4};
        r.mesh.reset();
        QVERIFY_THROWS_EXCEPTION(InputError, search(r));
    }
    void lockedOpsKeepTheirStagesThroughAReSearch() {
        // Lock an op of block 1 on stage 1 (the balanced cut has it on stage 0): the re-search keeps
        // both its strategy and its stage, so stage 0 holds block 0 alone.
        HeadHeavy h;
        const Graph& g = h.g;
        SearchRequest& r = h.r;
        const auto blocks = findRepeatedBlocks(g);
        const OpId op = blocks->blocks[1][2];
        const auto first = search(r);
        r.locks.assign(g.ops().size(), std::nullopt);
        r.locks[op.index()] = first->plan.ops[op.index()].strategy;
        r.blockStages.assign(8, -1);
        r.blockStages[1] = 1;
        // Re-searched on the first plan's graph (its micro-batch count), as the window does.
        r.graph = first->graph;
        r.settings = first->plan.settings;
        r.open.microbatches = false;
        const auto again = search(r);
        QCOMPARE(again->plan.pipeline.stageOf(op), 1);
        QCOMPARE(again->plan.pipeline.chunkBlocks.front(), 1);
        QCOMPARE(again->plan.ops[op.index()].strategy, first->plan.ops[op.index()].strategy);
        QVERIFY(again->plan.ops[op.index()].locked);
        // Stages the cut cannot keep (block 0 on stage 3) are refused.
        r.blockStages.assign(8, -1);
        r.blockStages[0] = 3;
        QVERIFY_THROWS_EXCEPTION(InputError, search(r));
    }
    void equalsBruteForceOverStrategiesAndCuts_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<double>("memoryFraction");
        QTest::newRow("pipe=2,data=2 1f1b") << QStringLiteral("pipe=2,data=2") << int(Schedule::OneFOneB) << 0.0;
        QTest::newRow("pipe=2,model=2 1f1b") << QStringLiteral("pipe=2,model=2") << int(Schedule::OneFOneB) << 0.0;
        QTest::newRow("pipe=2,model=2 gpipe") << QStringLiteral("pipe=2,model=2") << int(Schedule::GPipe) << 0.0;
        QTest::newRow("pipe=2,data=2 1f1b, 60% memory") << QStringLiteral("pipe=2,data=2") << int(Schedule::OneFOneB) << 0.6;
        QTest::newRow("pipe=3,data=2 1f1b") << QStringLiteral("pipe=3,data=2") << int(Schedule::OneFOneB) << 0.0;
    }
    void equalsBruteForceOverStrategiesAndCuts() {
        // A chain of six [4, 256] x [256, 256] matmuls and a loss (the matmuls after the first are the
        // repeated blocks) on nodes of 2 (one per stage), 4 micro-batches, settings fixed: every
        // assignment of strategies (the search's candidates per op) with every cut, each evaluated in
        // full. The searched plan is the fastest that fits, within 3%: the DP is exact on its objective
        // (the per-op sums, tst_stage_cuts), which the composed step (evaluate()'s, what is enumerated
        // here) follows within the one-clock bound; with a memory fraction, the device holds that share
        // of the fastest plan's peak.
        QFETCH(QString, mesh);
        QFETCH(int, schedule);
        QFETCH(double, memoryFraction);
        std::string tensors = R"j({"name": "x", "shape": [4, 256], "dtype": "bf16", "role": "input"},
            {"name": "target", "shape": [4, 256], "dtype": "bf16", "role": "input"},
            {"name": "loss", "shape": [4], "dtype": "fp32", "role": "activation"})j";
        std::string ops;
        for (int i = 0; i < 6; ++i) {
            const std::string n = std::to_string(i), in = i == 0 ? "x" : "h" + std::to_string(i - 1);
            tensors += ", {\"name\": \"w" + n + "\", \"shape\": [256, 256], \"dtype\": \"bf16\", \"role\": \"parameter\"}" +
                       ", {\"name\": \"h" + n + "\", \"shape\": [4, 256], \"dtype\": \"bf16\", \"role\": \"activation\"}";
            ops += "{\"name\": \"fc" + n + "\", \"kind\": \"matmul\", \"inputs\": [\"" + in + "\", \"w" + n +
                   "\"], \"outputs\": [\"h" + n + "\"], \"rule\": \"([b,h],[h,f])->([b,f])\", \"block\": \"layer\"}, ";
        }
        ops += R"j({"name": "mse", "kind": "mse_loss", "inputs": ["h5", "target"], "outputs": ["loss"],
            "rule": "([b,h],[b,h])->([b]) {h:local}", "block": "head"})j";
        const Graph g = parseModelJson(R"j({"format": "shardscope-model", "version": 1, "name": "chain", "tensors": [)j" +
                                           tensors + R"j(], "ops": [)j" + ops + "]}",
                                       "chain");
        const Mesh m = Mesh::parse(mesh.toStdString());
        const int P = m.pipelineStages();
        Cluster c = nodes(P, 2);
        StepSettings s;
        s.microbatches = 4;
        s.schedule = static_cast<Schedule>(schedule);
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks && blocks->count() >= 2);
        const int L = blocks->count();
        std::vector<std::vector<int>> cuts; // every way to deal L blocks to P stages
        for (int mask = 0; mask < (1 << (L - 1)); ++mask)
            if (__builtin_popcount(unsigned(mask)) == P - 1) {
                std::vector<int> cut{1};
                for (int b = 1; b < L; ++b)
                    (mask >> (b - 1) & 1) ? cut.push_back(1) : void(++cut.back());
                cuts.push_back(cut);
            }
        // Every plan's step and peak.
        std::vector<std::pair<double, double>> plans;
        {
            const CostModel model(g, c, m, s);
            const SearchProblem problem(sharedCopy(model), {});
            std::vector<int> choice(std::size_t(problem.size()), 0);
            while (true) {
                Plan plan = Plan::replicated(g.ops().size(), m);
                plan.settings = s;
                for (int v = 0; v < problem.size(); ++v)
                    plan.ops[std::size_t(v)].strategy = problem.candidates(v)[std::size_t(choice[std::size_t(v)])];
                for (const std::vector<int>& cut : cuts) {
                    plan.pipeline = makePipelineLayout(g, P, 1, cut);
                    const auto e = evaluate(model, plan, nullptr, EvaluationDetail::Score);
                    plans.emplace_back(e->stepTime, e->peakMemory);

                }
                int v = 0;
                while (v < problem.size() && ++choice[std::size_t(v)] == problem.choices(v))
                    choice[std::size_t(v++)] = 0;
                if (v == problem.size())
                    break;
            }
        }
        if (memoryFraction > 0)
            c.device.memoryBytes = memoryFraction * std::min_element(plans.begin(), plans.end())->second;
        double best = std::numeric_limits<double>::infinity();
        for (const auto& [time, peak] : plans)
            if (peak <= c.device.memoryBytes)
                best = std::min(best, time);
        QVERIFY(plans.size() > 10000);
        QVERIFY(best < std::numeric_limits<double>::infinity());
        SearchRequest r;
        r.graph = sharedCopy(g);
        r.cluster = sharedCopy(c);
        r.mesh = m;
        r.settings = s;
        r.threads = 1;
        r.algorithm = SearchAlgorithm::Pase; // unfolded: every op its own choice, as enumerated
        const auto result = search(r);
        QVERIFY(result->evaluation->feasible);
        // Under a memory cap the DP picks strategies on the starting cut (its memory term does not
        // follow the cut) and the re-cut keeps them: here a plan of the same cut and peak, 14% faster,
        // is missed. A joint cut and memory search would find it.
        QEXPECT_FAIL("pipe=2,data=2 1f1b, 60% memory", "strategies chosen on the starting cut under a memory cap", Continue);
        QVERIFY2(result->evaluation->stepTime >= best * (1 - 1e-9) && result->evaluation->stepTime <= best * 1.03,
                 qPrintable(QStringLiteral("search %1 s, brute force %2 s over %3 plans")
                                .arg(result->evaluation->stepTime, 0, 'g', 12)
                                .arg(best, 0, 'g', 12)
                                .arg(plans.size())));
    }
    void aPipeMeshWithTooFewBlocksIsRefused() {
        const ModelParams p = gpt(64);
        const Graph g = buildModel("gpt", p, 1, "gpt");
        const Cluster c = nodes(16, 1);
        SearchRequest r = request(g, c, p);
        r.mesh = Mesh::parse("pipe=16");
        try {
            search(r);
            QFAIL("searched 16 stages of 8 blocks");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("8 repeated blocks cannot fill 16") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPipelineSearch)
#include "tst_pipeline_search.moc"
