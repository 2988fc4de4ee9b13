// The search (docs/DESIGN.md, Search): the exact DP against brute force on random branchy graphs, and the
// properties a user relies on: never worse than a baseline, locks kept, cancellation, determinism.

#include "graph_text.h"
#include "shared_copy.h"
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/io/model_file.h"
#include "engine/io/plan_file.h"
#include "engine/plans/baselines.h"
#include "engine/evaluation/evaluation.h"
#include "engine/search/first_block.h"
#include "engine/search/folded_run.h"
#include "engine/search/local_search.h"
#include "engine/search/mesh_equivalence.h"
#include "engine/search/pipeline_candidates.h"
#include "engine/search/plan_score.h"
#include "engine/search/search.h"
#include "engine/search/solver.h"
#include "engine/util/error.h"

#include <chrono>
#include <random>
#include <thread>

using namespace shardscope;

namespace {

/// A random DAG of `n` ops on [B, H] activations: linears (with a weight), ReLUs and adds joining two
/// earlier tensors, each reading any earlier tensor, so the graph branches and joins.
Graph randomDag(std::mt19937& rng, int n) {
    Graph g;
    const std::int64_t B = 4, H = std::uniform_int_distribution<int>(0, 1)(rng) ? 4 : 6;
    std::vector<TensorId> acts{g.addTensor(Tensor{"x", {B, H}, DType::BF16, TensorRole::Input, {}, {}})};
    for (int i = 0; i < n; ++i) {
        const std::string name = "op" + std::to_string(i);
        auto pick = [&] { return acts[std::uniform_int_distribution<std::size_t>(0, acts.size() - 1)(rng)]; };
        Op op;
        op.name = name;
        const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
        const TensorId out = g.addTensor(Tensor{name + ".out", {B, H}, DType::BF16, TensorRole::Activation, {}, {}});
        if (kind == 0 || acts.size() < 2) {
            const TensorId w = g.addTensor(Tensor{name + ".w", {H, H}, DType::BF16, TensorRole::Parameter, {}, {}});
            op.kind = OpKind::MatMul;
            op.rule = ShardingRule::parse("([b,h],[h,f])->([b,f])");
            op.inputs = {pick(), w};
        } else if (kind == 1) {
            op.kind = OpKind::Relu;
            op.rule = ShardingRule::parse("([b,h])->([b,h])");
            op.inputs = {pick()};
        } else {
            op.kind = OpKind::Add;
            op.rule = ShardingRule::parse("([b,h],[b,h])->([b,h])");
            TensorId a = pick(), b = pick();
            while (b == a)
                b = pick();
            op.inputs = {a, b};
        }
        op.outputs = {out};
        g.addOp(std::move(op));
        acts.push_back(out);
    }
    g.finalize();
    return g;
}

SearchRequest request(const Graph& g, const Cluster& c, const std::string& mesh, const std::string& algo = "auto") {
    SearchRequest r;
    r.graph = sharedCopy(g);
    r.cluster = sharedCopy(c);
    if (mesh != "auto")
        r.mesh = Mesh::parse(mesh);
    r.algorithm = parseAlgorithm(algo);
    return r;
}

Graph preset(const std::string& name, std::vector<std::string> sets = {}) {
    return loadModel(ModelRequest{name, std::move(sets), std::nullopt}, 1);
}

} // namespace

class TestSearch : public QObject {
    Q_OBJECT
private slots:
    void paseEqualsBruteOnRandomDags() {
        // 50 seeded DAGs of 3 to 10 ops on 2- and 3-axis meshes, small enough for brute force.
        const Cluster cluster = clusterPreset("dgx-a100", 1);
        const std::vector<std::string> meshes{"a=2,b=4", "a=4,b=2", "a=2,b=2,c=2"};
        int checked = 0, branchy = 0;
        for (unsigned seed = 1; checked < 50 && seed < 5000; ++seed) {
            std::mt19937 rng(seed);
            const int n = std::uniform_int_distribution<int>(3, 10)(rng);
            const Graph g = randomDag(rng, n);
            const Mesh mesh = Mesh::parse(meshes[seed % meshes.size()]);
            const CostModel model(g, cluster, mesh, StepSettings{});
            const SearchProblem problem(sharedCopy(model), {});
            if (problem.spaceSize() > 2e5)
                continue;
            const double lambda = (seed % 3 == 0) ? 1e-12 : 0.0; // some with a memory weight
            const Solution brute = BruteSolver().solve(problem, lambda, {});
            const Solution pase = PaseSolver().solve(problem, lambda, {});
            QVERIFY2(std::abs(pase.objective - brute.objective) <= 1e-12 * brute.objective,
                     qPrintable(QStringLiteral("seed %1: pase %2 brute %3").arg(seed).arg(pase.objective, 0, 'g', 15)
                                    .arg(brute.objective, 0, 'g', 15)));
            QCOMPARE(problem.objective(pase.choice, lambda), pase.objective);
            for (const Tensor& t : g.tensors())
                branchy += t.consumers.size() > 1 ? 1 : 0;
            ++checked;
        }
        QCOMPARE(checked, 50);
        QVERIFY(branchy > 50); // many tensors feed several ops: branches and joins
    }
    void paseEqualsBruteOnSmallModels_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::newRow("mlp 2 layers") << QStringLiteral("mlp") << QStringLiteral("data=2,model=4");
        QTest::newRow("mlp 1 layer 3 axes") << QStringLiteral("mlp:layers=1") << QStringLiteral("a=2,b=2,c=2");
        QTest::newRow("branchy fixture") << QStringLiteral("fixture:branchy") << QStringLiteral("model=8");
    }
    void paseEqualsBruteOnSmallModels() {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        const QStringList parts = model.split(QLatin1Char(':'));
        std::vector<std::string> sets;
        if (parts.size() > 1)
            sets.push_back(parts[1].toStdString());
        const Graph g = parts[0] == QStringLiteral("fixture") ? testing::graphFixture(parts[1].toStdString())
                                                               : preset(parts[0].toStdString(), sets);
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel model_(g, c, Mesh::parse(mesh.toStdString()), StepSettings{});
        const SearchProblem problem(sharedCopy(model_), {});
        QVERIFY(problem.spaceSize() <= BruteSolver::kLimit);
        const Solution brute = BruteSolver().solve(problem, 0, {});
        const Solution pase = PaseSolver().solve(problem, 0, {});
        QVERIFY(std::abs(pase.objective - brute.objective) <= 1e-12 * brute.objective);
    }
    void localSearchImprovesItsStartAndIsBoundedByTheOptimum() {
        // The bounded fallback: never worse than where it starts, never better than the exact DP.
        const Graph g = preset("gpt");
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel model(g, c, Mesh::parse("data=4,model=2"), StepSettings{});
        const SearchProblem problem(sharedCopy(model), {});
        const std::vector<int> start(std::size_t(problem.size()), 0); // everything replicated
        const Solution local = localSearch(problem, start, 0, 50, {});
        const Solution exact = PaseSolver().solve(problem, 0, {});
        QVERIFY(local.objective <= problem.objective(start, 0));
        QVERIFY(local.objective >= exact.objective * (1 - 1e-12));
        QVERIFY(local.note.find("passes") != std::string::npos);
    }
    void bruteRefusesHugeSpaces() {
        const Graph g = preset("gpt");
        const Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel model(g, c, Mesh::parse("data=4,model=2"), StepSettings{});
        const SearchProblem problem(sharedCopy(model), {});
        QVERIFY_THROWS_EXCEPTION(InputError, BruteSolver().solve(problem, 0, {}));
    }
    void tapasEqualsPase_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        for (const char* m : {"gpt", "llama", "moe"})
            for (int layers : {2, 3, 5, 8})
                QTest::newRow(qPrintable(QStringLiteral("%1 x%2").arg(QLatin1String(m)).arg(layers)))
                    << QString::fromLatin1(m) << layers;
    }
    void tapasEqualsPase() {
        // Folding repeated layers must not change the optimum: same objective as the unfolded DP.
        QFETCH(QString, model);
        QFETCH(int, layers);
        const Graph g = preset(model.toStdString(), {"layers=" + std::to_string(layers)});
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CostModel cm(g, c, Mesh::parse("data=4,model=4"), StepSettings{});
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        QVERIFY(blocks->count() >= layers - 1);
        const SearchProblem unfolded(sharedCopy(cm), {});
        const SearchProblem folded(sharedCopy(cm), {}, &*blocks);
        const Solution pase = PaseSolver().solve(unfolded, 0, {});
        const Solution tapas = TapasSolver().solve(folded, 0, {});
        QVERIFY2(std::abs(tapas.objective - pase.objective) <= 1e-9 * pase.objective,
                 qPrintable(QStringLiteral("tapas %1 pase %2").arg(tapas.objective, 0, 'g', 15).arg(pase.objective, 0, 'g', 15)));
        // The folded tables are the unfolded ones, so the choice costs the same on both.
        QVERIFY(std::abs(unfolded.objective(tapas.choice, 0) - tapas.objective) <= 1e-9 * pase.objective);
        QCOMPARE(tapas.foldedBlocks, blocks->count());
    }
    void foldedPricingNeedsBlocksThatRepeat() {
        // A plan whose block 3 differs from block 1 (a solve's boundary path may change along the
        // stack) is priced op by op: folded pricing would charge block 3 what block 1 costs.
        for (bool overlap : {false, true}) {
            const Graph g = preset("gpt", {"layers=5"});
            const Cluster c = clusterPreset("dgx-a100", 1);
            StepSettings settings;
            settings.overlap = overlap;
            const Mesh mesh = Mesh::parse("data=2,model=4");
            const CostModel cm(g, c, mesh, settings);
            const auto blocks = findRepeatedBlocks(g);
            QVERIFY(blocks && blocks->count() == 5);
            Plan plan = baselinePlan(g, mesh, "megatron", settings);
            QVERIFY(plan.repeats(*blocks));
            const double repeated = evaluate(cm, plan)->stepTime;
            QCOMPARE(scorePlan(cm, plan, &*blocks).stepTime, repeated); // blocks that repeat: folded is exact
            // Block 3's first matmul replicated: the plan no longer repeats block 1.
            for (OpId o : blocks->blocks[3])
                if (g.op(o).kind == OpKind::MatMul) {
                    plan.ops[o.index()].strategy = OpStrategy::replicated(mesh.rank());
                    break;
                }
            QVERIFY(!plan.repeats(*blocks));
            const double exact = evaluate(cm, plan)->stepTime;
            QVERIFY(exact > repeated); // replicating a matmul's work costs time
            QCOMPARE(scorePlan(cm, plan, &*blocks).stepTime, exact);
            QCOMPARE(evaluate(cm, plan, &*blocks, EvaluationDetail::Score)->stepTime, exact);
        }
    }
    void firstBlockJoinsTheChain_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("entry");
        QTest::addColumn<bool>("extraGhostValues");
        // GPT's position add produces what an add2 produces; Llama's embedding also produces sums
        // partial over the vocabulary's axes, which no add2 does.
        QTest::newRow("gpt") << QStringLiteral("gpt") << QStringLiteral("embed.position") << false;
        QTest::newRow("llama") << QStringLiteral("llama") << QStringLiteral("embed") << true;
    }
    void firstBlockJoinsTheChain() {
        // Folded with the first block chained, TAPAS still finds PaSE's optimum, with and without a
        // memory weight, on a three-axis mesh.
        QFETCH(QString, model);
        QFETCH(QString, entry);
        QFETCH(bool, extraGhostValues);
        const Graph g = preset(model.toStdString(), {"layers=4", "hidden=256", "heads=8", "seq=128", "batch=16"});
        const Cluster c = clusterPreset("dgx-a100", 2);
        const CostModel cm(g, c, Mesh::parse("data=2,seq=2,model=4"), StepSettings{});
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        const SearchProblem folded(sharedCopy(cm), {}, &*blocks), unfolded(sharedCopy(cm), {});
        const auto first = firstBlockAsGhost(folded, *blocks);
        QVERIFY(first);
        QCOMPARE(QString::fromStdString(g.ops()[std::size_t(first->entry)].name), entry);
        QCOMPARE(first->ghostOf.size(), std::size_t(folded.choices(first->entry)));
        QCOMPARE(!first->extra.empty(), extraGhostValues);
        const double scale = PaseSolver().solve(unfolded, 0, {}).objective / c.device.memoryBytes;
        for (double lambda : {0.0, 4 * scale}) {
            const Solution pase = PaseSolver().solve(unfolded, lambda, {});
            const Solution tapas = TapasSolver().solve(folded, lambda, {});
            QVERIFY2(std::abs(tapas.objective - pase.objective) <= 1e-9 * pase.objective,
                     qPrintable(QStringLiteral("lambda %1: tapas %2 pase %3")
                                    .arg(lambda).arg(tapas.objective, 0, 'g', 15).arg(pase.objective, 0, 'g', 15)));
        }
    }
    void aFirstBlockThatDiffersStaysInTheHead() {
        // One op of the first layer fixed by a pin: its candidates differ from the second layer's, so
        // the first block is solved with the head, and the optimum is still PaSE's.
        const Graph g = preset("gpt", {"layers=4", "hidden=256", "heads=8", "seq=128", "batch=16"});
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const CostModel cm(g, c, mesh, StepSettings{});
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        std::vector<std::optional<StrategyPin>> pins(g.ops().size());
        const OpId norm = blocks->blocks[0][0];
        pins[norm.index()] = StrategyPin::of(OpStrategy::replicated(mesh.rank()));
        const SearchProblem folded(sharedCopy(cm), pins, &*blocks), unfolded(sharedCopy(cm), pins);
        QVERIFY(!firstBlockAsGhost(folded, *blocks));
        const Solution pase = PaseSolver().solve(unfolded, 0, {});
        const Solution tapas = TapasSolver().solve(folded, 0, {});
        QVERIFY(std::abs(tapas.objective - pase.objective) <= 1e-9 * pase.objective);
        // Pinning the first block's exit changes what feeds the second block: the search folds blocks
        // 1..3 only (folded_run.h), and finds PaSE's optimum too.
        std::vector<std::optional<StrategyPin>> exitPin(g.ops().size());
        exitPin[blocks->exit(0).index()] = StrategyPin::of(OpStrategy::replicated(mesh.rank()));
        SearchRequest r = request(g, c, "data=4,model=2", "tapas");
        r.pins = exitPin;
        const auto searched = search(r);
        r.algorithm = SearchAlgorithm::Pase;
        const auto exact = search(r);
        QVERIFY(std::abs(searched->evaluation->stepTime - exact->evaluation->stepTime) <=
                1e-9 * exact->evaluation->stepTime);
    }
    void aLockedMiddleBlockFoldsTheLongestRun_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<bool>("exit");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("count");
        // 8 blocks, block 3 locked. An op inside it: blocks 3..7 fold with block 3 as their first block
        // (which may differ but in its exit). Its exit: what feeds block 4 differs, so blocks 4..7 fold.
        QTest::newRow("gpt, inner op") << QStringLiteral("gpt") << QStringLiteral("data=4,model=2") << false << 3 << 5;
        QTest::newRow("gpt, exit") << QStringLiteral("gpt") << QStringLiteral("data=4,model=2") << true << 4 << 4;
        QTest::newRow("llama, inner op, 3 axes") << QStringLiteral("llama") << QStringLiteral("data=2,seq=2,model=2") << false
                                                 << 3 << 5;
    }
    void aLockedMiddleBlockFoldsTheLongestRun() {
        // A lock in one block leaves the others identical: the longest run of them folds, the rest is
        // solved op by op in the head, and the optimum is PaSE's, with and without a memory weight.
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        QFETCH(bool, exit);
        QFETCH(int, first);
        QFETCH(int, count);
        const Graph g = preset(model.toStdString(), {"layers=8", "hidden=256", "heads=8", "seq=128", "batch=16"});
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh m = Mesh::parse(mesh.toStdString());
        const CostModel cm(g, c, m, StepSettings{});
        const auto layers = findRepeatedBlocks(g);
        QVERIFY(layers && layers->count() == 8);
        std::vector<std::optional<StrategyPin>> pins(g.ops().size());
        OpId locked = layers->exit(3);
        if (!exit)
            for (OpId o : layers->blocks[3])
                if (g.op(o).kind == OpKind::MatMul) {
                    locked = o;
                    break;
                }
        QVERIFY(exit || locked != layers->exit(3));
        pins[locked.index()] = StrategyPin::of(OpStrategy::replicated(m.rank()));
        const auto run = foldedRun(*layers, pins);
        QVERIFY(run);
        QCOMPARE(run->count(), count);
        QCOMPARE(run->blocks.front().front(), layers->blocks[std::size_t(first)].front());
        QCOMPARE(run->blockOf[layers->blocks[std::size_t(first) - 1].front().index()], -1);
        const SearchProblem folded(sharedCopy(cm), pins, &*run), unfolded(sharedCopy(cm), pins);
        const double scale = PaseSolver().solve(unfolded, 0, {}).objective / c.device.memoryBytes;
        for (double lambda : {0.0, 4 * scale}) {
            const Solution pase = PaseSolver().solve(unfolded, lambda, {});
            const Solution tapas = TapasSolver().solve(folded, lambda, {});
            QCOMPARE(tapas.foldedBlocks, count);
            QVERIFY2(std::abs(tapas.objective - pase.objective) <= 1e-9 * pase.objective,
                     qPrintable(QStringLiteral("lambda %1: tapas %2 pase %3")
                                    .arg(lambda).arg(tapas.objective, 0, 'g', 15).arg(pase.objective, 0, 'g', 15)));
            QVERIFY(std::abs(unfolded.objective(tapas.choice, lambda) - tapas.objective) <= 1e-9 * pase.objective);
            QVERIFY(pins[locked.index()]->allows(folded.candidates(locked.value)[std::size_t(tapas.choice[locked.index()])]));
        }
        // Locks that leave no two neighbouring blocks alike (every block's exit locked to a strategy of
        // its own) leave nothing to fold, and the report says why.
        {
            SearchRequest every = request(g, c, mesh.toStdString(), "tapas");
            every.locks.assign(g.ops().size(), std::nullopt);
            const auto choices = enumerateStrategies(g.op(layers->exit(0)), m);
            QVERIFY(choices.size() >= 2);
            for (int b = 0; b < layers->count(); ++b)
                every.locks[layers->exit(b).index()] = choices[std::size_t(b % 2)];
            const auto unfolded = search(every);
            QCOMPARE(unfolded->report.foldedBlocks, 0);
            const auto& notes = unfolded->report.notes;
            QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
                return n.find("no two neighbouring blocks alike") != std::string::npos;
            }));
        }
        // The whole search with the op locked folds the same run and answers PaSE's step.
        SearchRequest r = request(g, c, mesh.toStdString(), "tapas");
        r.locks.assign(g.ops().size(), std::nullopt);
        r.locks[locked.index()] = OpStrategy::replicated(m.rank());
        const auto searched = search(r);
        QCOMPARE(searched->report.foldedBlocks, count);
        r.algorithm = SearchAlgorithm::Pase;
        const auto exact = search(r);
        QVERIFY(std::abs(searched->evaluation->stepTime - exact->evaluation->stepTime) <=
                1e-9 * exact->evaluation->stepTime);
    }
    void blocksAreFoundStructurally() {
        // 12 GPT layers of 15 ops each: the first layer may join the head, the rest fold.
        const Graph g = preset("gpt2-small");
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        QCOMPARE(blocks->period(), 15);
        QVERIFY(blocks->count() >= 11);
        QCOMPARE(g.op(blocks->exit(0)).kind, OpKind::Add);
        // A graph with no repetition has none.
        QVERIFY(!findRepeatedBlocks(preset("mlp", {"layers=1"})));
    }
    void mlpFindsColumnThenRow() {
        // Two linears on a model axis: split fc0's output, keep ReLU split, split fc1's reduction;
        // nothing moves between the linears.
        const Graph g = preset("mlp");
        const Cluster c = clusterPreset("dgx-a100", 1);
        const auto r = search(request(g, c, "model=8"));
        auto strategy = [&](const char* op) {
            const OpId o = *g.findOp(op);
            return r->plan.ops[o.index()].strategy.toString(g.op(o).rule, r->plan.mesh);
        };
        QCOMPARE(strategy("layers.0.fc"), std::string("model:o"));
        QCOMPARE(strategy("layers.0.relu"), std::string("model:o"));
        QCOMPARE(strategy("layers.1.fc"), std::string("model:i"));
        QVERIFY(r->evaluation->perOp[g.findOp("layers.0.relu")->index()].collectives.empty());
        QVERIFY(r->evaluation->perOp[g.findOp("layers.1.fc")->index()].collectives.empty());
    }
    void gpt3On1024GpusBeatsDataParallelAndMegatron() {
        // --mesh auto over 128 DGX A100 nodes: better than pure data parallelism and than Megatron
        // (with and without sequence parallelism) at its best data/model split. One micro-batch of 16
        // sequences with fixed settings, overlap off (the analytic step is then the sum the search's
        // tables hold), keeps this a test of the strategy search alone; the published batch with
        // settings chosen and overlap is the bench's plan-quality suite.
        const Graph g = preset("gpt3-175b", {"batch=16"});
        const Cluster c = clusterPreset("dgx-a100", 128);
        StepSettings settings;
        settings.overlap = false;
        SearchRequest req = request(g, c, "auto");
        req.settings = settings;
        const auto r = search(req);
        QVERIFY(r->evaluation->feasible);
        QCOMPARE(r->report.chosenBy(), std::string("tapas"));
        // With the schedule fixed (1F1B), each pipelined mesh once: pipe 2 ... 64 (96 blocks).
        QCOMPARE(r->report.meshesTried.size(), candidateMeshes(1024, 8).size() + pipelinedMeshes(1024, 8, 96).size());
        const Plan dp = baselinePlan(g, Mesh::parse("data=1024"), "dp", settings);
        QVERIFY(r->evaluation->stepTime < evaluate(CostModel(g, c, dp.mesh, dp.settings), dp)->stepTime);
        for (const Mesh& m : candidateMeshes(1024, 8))
            for (const char* b : {"megatron", "megatron-sp"}) {
                if (m.rank() < 2)
                    continue;
                const Plan p = baselinePlan(g, m, b, settings);
                QVERIFY(r->evaluation->stepTime <= evaluate(CostModel(g, c, m, p.settings), p)->stepTime);
            }
    }
    void neverWorseThanAnyBaseline_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"mlp", "gpt", "llama", "moe", "resnet", "gpt2-small"})
            QTest::newRow(m) << QString::fromLatin1(m);
    }
    void neverWorseThanAnyBaseline() {
        QFETCH(QString, model);
        const Graph g = preset(model.toStdString());
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh mesh = Mesh::parse("data=4,model=2");
        const auto r = search(request(g, c, "data=4,model=2"));
        const CostModel cm(g, c, mesh, StepSettings{});
        for (const BaselineEntry& entry : baselineRegistry()) {
            const std::string& b = entry.spec;
            const Plan plan = baselinePlan(g, mesh, b, StepSettings{});
            const CostModel bm(g, c, mesh, plan.settings);
            const auto e = evaluate(bm, plan);
            if (e->feasible && plan.settings.zeroStage == 0)
                QVERIFY2(r->evaluation->stepTime <= e->stepTime * (1 + 1e-12), b.c_str());
        }
        QVERIFY(r->evaluation->feasible);
    }
    void openZeroIsChosenAndFixedZeroGetsAdvice() {
        // hidden = 1001 divides by no mesh axis, so no op can shard its weights; only ZeRO can. 2M
        // parameters need 16 B each replicated (32 MB), but 2 + 2 + 12/8 B with ZeRO-1 over 8 (11 MB).
        const Graph g = preset("mlp", {"hidden=1001", "ffn=1001"});
        Cluster c = clusterPreset("dgx-a100", 1);
        c.device.memoryBytes = 20e6;
        SearchRequest open = request(g, c, "data=8");
        open.open.zeroStage = true;
        const auto r = search(open);
        QVERIFY2(r->evaluation->feasible, r->evaluation->overflow.c_str());
        QVERIFY(r->plan.settings.zeroStage >= 1);
        QCOMPARE(r->plan.settings.zeroAxes, AxisSet(1));
        QVERIFY(r->report.notes.front().find("settings chosen: ZeRO") != std::string::npos);
        QVERIFY(r->report.fitAdvice.empty());
        // Fixed at ZeRO 0 nothing fits: the plan says so and the advice names the stage that would fit.
        const auto fixed = search(request(g, c, "data=8"));
        QVERIFY(!fixed->evaluation->feasible);
        QCOMPARE(fixed->plan.settings.zeroStage, 0);
        QVERIFY(!fixed->report.fitAdvice.empty());
        QVERIFY2(fixed->report.fitAdvice.front().rfind("ZeRO stage 1: zero1 on data=8 fits", 0) == 0,
                 fixed->report.fitAdvice.front().c_str());
    }
    void recomputationThatRecomputesNothingIsNotSolved() {
        // The mlp has no attention: selective recomputation (the attention core) recomputes no op, so
        // its tables are none's and the search solves none of its combinations. Memory is set so that
        // only full recomputation fits: without the rule, selective would be solved and swept beside
        // none. Expected: the open search solves no more combinations than the two fixed ones together.
        const Graph g = preset("mlp", {"batch=64"});
        Cluster c = clusterPreset("dgx-a100", 1);
        const CostModel selective(g, c, Mesh::parse("data=8"), StepSettings{.recompute = Recompute::Selective});
        for (OpId o : g.topoOrder())
            QVERIFY(!selective.recomputed(o));
        auto peak = [&](Recompute r) {
            SearchRequest q = request(g, c, "data=8");
            q.settings.recompute = r;
            return search(q)->evaluation->peakMemory;
        };
        const double none = peak(Recompute::None), full = peak(Recompute::Full);
        QVERIFY2(full < none, qPrintable(QStringLiteral("%1 vs %2").arg(full).arg(none)));
        c.device.memoryBytes = (none + full) / 2;
        auto solved = [&](std::optional<Recompute> fixed) {
            SearchRequest q = request(g, c, "data=8");
            q.open.recompute = !fixed;
            q.settings.recompute = fixed.value_or(Recompute::None);
            return search(q)->report.combinationsSolved;
        };
        const int open = solved(std::nullopt), fixedNone = solved(Recompute::None), fixedFull = solved(Recompute::Full);
        QVERIFY2(open <= fixedNone + fixedFull,
                 qPrintable(QStringLiteral("open %1, none %2, full %3").arg(open).arg(fixedNone).arg(fixedFull)));
    }
    void locksAreKept() {
        const Graph g = preset("mlp");
        const Cluster c = clusterPreset("dgx-a100", 1);
        SearchRequest r = request(g, c, "model=8");
        r.locks.resize(g.ops().size());
        const OpId fc1 = *g.findOp("layers.1.fc");
        r.locks[fc1.index()] = OpStrategy::replicated(1);
        const auto result = search(r);
        QCOMPARE(result->plan.ops[fc1.index()].strategy, OpStrategy::replicated(1));
        QVERIFY(result->plan.ops[fc1.index()].locked);
        const auto free = search(request(g, c, "model=8"));
        QVERIFY(result->evaluation->stepTime >= free->evaluation->stepTime);
    }
    void stopAtAnyMomentReturnsAValidPlan_data() {
        QTest::addColumn<int>("delayMs");
        for (int ms : {1, 20, 100, 300})
            QTest::newRow(qPrintable(QStringLiteral("%1 ms").arg(ms))) << ms;
    }
    void stopAtAnyMomentReturnsAValidPlan() {
        // A stop may land while tables are half built, inside a solve or during a memory sweep: the
        // search still returns a plan that verifies against its graph.
        QFETCH(int, delayMs);
        const Graph g = preset("gpt3-175b");
        const Cluster c = clusterPreset("dgx-a100", 128);
        std::stop_source source;
        SearchRequest r = request(g, c, "auto", "pase"); // unfolded: seconds of table building
        r.threads = 1;
        r.stop = source.get_token();
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
            source.request_stop();
        });
        const auto result = search(r);
        stopper.join();
        QVERIFY(result->plan.verify(*result->graph).empty());
        QVERIFY(result->evaluation->stepTime > 0);
    }
    void cancelledSearchReturnsAValidPlan() {
        const Graph g = preset("gpt");
        const Cluster c = clusterPreset("dgx-a100", 1);
        std::stop_source source;
        source.request_stop();
        SearchRequest r = request(g, c, "data=4,model=2");
        r.stop = source.get_token();
        const auto result = search(r);
        QVERIFY(result->report.cancelled);
        QVERIFY(result->plan.verify(g).empty());
        QVERIFY(result->evaluation->stepTime > 0);
    }
    void innerAxesSwappedOnOneSwitchPriceEveryPlanTheSame() {
        // DGX H100 nodes (one NVSwitch): data=4,seq=2,model=4 and data=4,seq=4,model=2 are the same
        // mesh with seq and model swapped. 50 random plans on the first, moved to the second through
        // the permutation, evaluate to the same step time and peak memory.
        const Cluster c = clusterPreset("dgx-h100", 4);
        const Mesh a = Mesh::parse("data=4,seq=2,model=4"), b = Mesh::parse("data=4,seq=4,model=2");
        const auto p = equivalentAxes(c, a, 1, b, 1);
        QVERIFY(p);
        QCOMPARE(*p, (std::vector<std::size_t>{0, 2, 1}));
        const Graph g = preset("gpt", {"layers=2", "hidden=256", "heads=8", "seq=128", "batch=16"});
        const CostModel ma(g, c, a, StepSettings{}), mb(g, c, b, StepSettings{});
        std::mt19937 rng(5);
        for (int i = 0; i < 50; ++i) {
            Plan pa = Plan::replicated(g.ops().size(), a), pb = Plan::replicated(g.ops().size(), b);
            for (std::size_t o = 0; o < g.ops().size(); ++o) {
                const auto all = enumerateStrategies(g.ops()[o], a);
                pa.ops[o].strategy = all[std::uniform_int_distribution<std::size_t>(0, all.size() - 1)(rng)];
                for (std::size_t x = 0; x < a.rank(); ++x)
                    pb.ops[o].strategy.factorOfAxis[(*p)[x]] = pa.ops[o].strategy.factorOfAxis[x];
            }
            const auto ea = evaluate(ma, pa), eb = evaluate(mb, pb);
            QCOMPARE(eb->stepTime, ea->stepTime);
            QCOMPARE(eb->peakMemory, ea->peakMemory);
        }
    }
    void expertMeshesForModelsWithExperts() {
        // Mixtral's 8 experts on 64 GPUs: expert axes of 2, 4 and 8 inside data parallelism; on 8 GPUs
        // E = 8 would leave one data group (experts over `data`, the plain mesh's), so 2 and 4 only; a
        // dense model gets none.
        const Graph moe = loadModel(ModelRequest{"moe", {"layers=1"}, std::nullopt}, 1);
        auto names = [](const std::vector<Mesh>& meshes) {
            QStringList out;
            for (const Mesh& m : meshes)
                out << QString::fromStdString(m.toString());
            return out;
        };
        QCOMPARE(names(expertMeshes(moe, 64)),
                 (QStringList{QStringLiteral("data=32,expert=2"), QStringLiteral("data=16,expert=4"),
                              QStringLiteral("data=8,expert=8")}));
        QCOMPARE(names(expertMeshes(moe, 8)), (QStringList{QStringLiteral("data=4,expert=2"), QStringLiteral("data=2,expert=4")}));
        QVERIFY(expertMeshes(loadModel(ModelRequest{"gpt", {"layers=1"}, std::nullopt}, 1), 64).empty());
    }
    void meshesThatPriceDifferentlyAreNotMerged() {
        const Cluster h100 = clusterPreset("dgx-h100", 4);
        // Different sizes on the data axis.
        QVERIFY(!equivalentAxes(h100, Mesh::parse("data=8,model=4"), 1, Mesh::parse("data=4,model=8"), 1));
        // ZeRO's axis must map to ZeRO's axis.
        QVERIFY(!equivalentAxes(h100, Mesh::parse("data=4,seq=2,model=4"), 1, Mesh::parse("data=4,seq=4,model=2"), 4));
        // Pairs of GPUs on a fast bridge, four pairs to a board: a group of four spans two levels, a
        // strided group of four (one GPU of each pair) spans the board only.
        Cluster bridged = h100;
        bridged.levels = {LinkLevel{"pair", 2, 400e9, 1e-6}, LinkLevel{"board", 4, 100e9, 2e-6},
                          LinkLevel{"cluster", 4, 50e9, 5e-6}};
        QVERIFY(!equivalentAxes(bridged, Mesh::parse("data=4,seq=2,model=4"), 1, Mesh::parse("data=4,seq=4,model=2"), 1));
    }
    void aMeshSearchedAsItsTwinFindsTheTwinsStepTime() {
        // Searched on every candidate mesh, data=2,seq=4,model=2 is solved as data=2,seq=2,model=4;
        // searched alone, it finds the same step time the joint search reports for it.
        const Graph g = preset("gpt", {"layers=2", "hidden=512", "heads=8", "seq=256", "batch=16"});
        const Cluster c = clusterPreset("dgx-h100", 2);
        const auto all = search(request(g, c, "auto"));
        bool noted = false;
        for (const std::string& n : all->report.notes)
            noted = noted || n.find("data=2,seq=4,model=2: prices every plan as data=2,seq=2,model=4") == 0;
        QVERIFY(noted);
        const auto alone = search(request(g, c, "data=2,seq=4,model=2"));
        const auto twin = search(request(g, c, "data=2,seq=2,model=4"));
        QVERIFY(std::abs(alone->evaluation->stepTime - twin->evaluation->stepTime) <= 1e-9 * twin->evaluation->stepTime);
        for (const MeshTried& m : all->report.meshesTried)
            if (m.mesh.toString() == "data=2,seq=4,model=2")
                QVERIFY(std::abs(m.stepTime - alone->evaluation->stepTime) <= 1e-9 * m.stepTime);
    }
    void deterministicAcrossThreadCounts() {
        const Graph g = preset("llama");
        const Cluster c = clusterPreset("dgx-a100", 2);
        SearchRequest one = request(g, c, "auto");
        one.threads = 1;
        SearchRequest two = request(g, c, "auto");
        two.threads = 2;
        const auto a = search(one), b = search(two);
        QCOMPARE(a->plan.mesh.toString(), b->plan.mesh.toString());
        QCOMPARE(a->plan.strategies(), b->plan.strategies());
        QCOMPARE(a->evaluation->stepTime, b->evaluation->stepTime);
        QCOMPARE(a->report.meshesTried.size(),
                 candidateMeshes(16, 8).size() + pipelinedMeshes(16, 8, findRepeatedBlocks(g)->count()).size());
    }
    void searchedPlanRoundTrips() {
        const Graph g = preset("moe");
        const Cluster c = clusterPreset("dgx-a100", 1);
        const auto r = search(request(g, c, "data=4,model=2"));
        const Plan back = parsePlanJson(planToJson(r->plan, g, r->evaluation.get()), "search.plan.json", g);
        QCOMPARE(back.strategies(), r->plan.strategies());
        QCOMPARE(evaluate(CostModel(g, c, back.mesh, back.settings), back)->stepTime, r->evaluation->stepTime);
    }
    void progressReachesTheEnd() {
        const Graph g = preset("gpt");
        const Cluster c = clusterPreset("dgx-a100", 1);
        SearchRequest r = request(g, c, "data=4,model=2");
        double last = -1;
        bool monotone = true;
        r.progress = [&](const SearchProgress& p) {
            monotone = monotone && p.fraction >= last;
            last = p.fraction;
        };
        search(r);
        QVERIFY(monotone);
        QCOMPARE(last, 1.0);
    }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
