// Tactics (PartIR): batch + megatron reproduces Megatron's plan and cost exactly; zero(3) shards the
// parameter, gradient and optimizer memory; propagation through the rules (an MLP's linears, a
// reshape to heads); conflicts name both sources; provenance names the tactic; auto never loses
// to what it started from and, over every axis, equals the plain search.

#include "shared_copy.h"
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/io/model_file.h"
#include "engine/io/plan_file.h"
#include "engine/io/tactic_file.h"
#include "engine/plans/baselines.h"
#include "engine/search/search.h"
#include "engine/tactics/tactic_runner.h"
#include "engine/util/error.h"

using namespace shardscope;

namespace {

Tactic tactic(TacticKind kind, std::string axis) {
    Tactic t;
    t.kind = kind;
    t.axis = std::move(axis);
    return t;
}

Tactic shard(std::string tensor, int dim, std::string axis) {
    Tactic t = tactic(TacticKind::Shard, std::move(axis));
    t.tensors = {std::move(tensor)};
    t.dim = dim;
    return t;
}

Tactic zero(int stage, std::string axis) {
    Tactic t = tactic(TacticKind::Zero, std::move(axis));
    t.stage = stage;
    return t;
}

struct Run {
    Graph graph;
    Cluster cluster = clusterPreset("dgx-a100", 1);
    std::shared_ptr<const TacticRun> result;

    Run(Graph g, const std::string& mesh, std::vector<Tactic> tactics) : graph(std::move(g)) {
        TacticRequest r;
        r.graph = sharedCopy(graph);
        r.cluster = sharedCopy(cluster);
        r.mesh = Mesh::parse(mesh);
        r.tactics = std::move(tactics);
        r.threads = 1;
        result = runTactics(r);
    }
    const OpStrategy& strategy(const char* op) const { return result->plan.ops[graph.findOp(op)->index()].strategy; }
    std::string text(const char* op) const {
        return strategy(op).toString(graph.op(*graph.findOp(op)).rule, result->plan.mesh);
    }
};

Graph preset(const char* name, std::vector<std::string> sets = {}) {
    return loadModel(ModelRequest{name, std::move(sets), std::nullopt}, 1);
}

} // namespace

class TestTactics : public QObject {
    Q_OBJECT
private slots:
    void batchAndMegatronAreMegatron_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("gpt") << QStringLiteral("gpt");
        QTest::newRow("gpt2-small, tied embeddings") << QStringLiteral("gpt2-small");
        QTest::newRow("llama") << QStringLiteral("llama");
    }
    void batchAndMegatronAreMegatron() {
        QFETCH(QString, model);
        const Run run(preset(qPrintable(model), {"layers=2"}), "data=4,model=2",
                      {tactic(TacticKind::Batch, "data"), tactic(TacticKind::Megatron, "model")});
        const Plan baseline = baselinePlan(run.graph, run.result->plan.mesh, "megatron", {});
        for (OpId o : run.graph.topoOrder())
            QVERIFY2(run.result->plan.ops[o.index()].strategy == baseline.ops[o.index()].strategy,
                     qPrintable(QString::fromStdString(run.graph.op(o).name)));
        const CostModel cm(run.graph, run.cluster, baseline.mesh, baseline.settings);
        QCOMPARE(run.result->evaluation->stepTime, evaluate(cm, baseline)->stepTime);
        QCOMPARE(run.result->stages.size(), std::size_t(2));
        // batch alone adds only gradient all-reduces; megatron adds more all-reduces.
        QVERIFY(run.result->stages[0].step.collectivesAdded.at("all-reduce") > 0);
        QVERIFY(run.result->stages[1].step.collectivesAdded.at("all-reduce") > 0);
        QVERIFY(run.result->stages[1].step.conflicts.empty());
    }
    void zeroThreeShardsParameterGradientAndOptimizerMemory() {
        const Run plain(preset("gpt", {"layers=2"}), "data=4,model=2",
                        {tactic(TacticKind::Batch, "data"), tactic(TacticKind::Megatron, "model")});
        const Run sharded(preset("gpt", {"layers=2"}), "data=4,model=2",
                          {tactic(TacticKind::Batch, "data"), tactic(TacticKind::Megatron, "model"), zero(3, "data")});
        const MemoryTerms& a = plain.result->evaluation->memory;
        const MemoryTerms& b = sharded.result->evaluation->memory;
        // No weight is split over data, so ZeRO-3 keeps a quarter of each over a data axis of 4.
        QCOMPARE(b.parameters, a.parameters / 4);
        QCOMPARE(b.gradients, a.gradients / 4);
        QCOMPARE(b.optimizer, a.optimizer / 4);
        QCOMPARE(b.activations, a.activations);
        const double expected = plain.result->evaluation->peakMemory - 0.75 * (a.parameters + a.gradients + a.optimizer) -
                                plain.result->evaluation->buffers + sharded.result->evaluation->buffers;
        QVERIFY(std::abs(sharded.result->evaluation->peakMemory - expected) <= 1e-6 * expected);
        QVERIFY(sharded.result->evaluation->peakMemory < plain.result->evaluation->peakMemory);
        // The zero step decided no op axis and brought ZeRO's gathers and reduce-scatters.
        const TacticStep& z = sharded.result->stages[2].step;
        QVERIFY(z.collectivesAdded.at("all-gather") > 0);
        QVERIFY(z.collectivesAdded.at("reduce-scatter") > 0);
        QCOMPARE(z.decidedAxes, sharded.result->stages[1].step.decidedAxes);
    }
    void shardingOneWeightDecidesTheOtherLinear() {
        // mlp: layers.0 (fc, relu) widens to ffn, layers.1 (fc, relu) narrows back.
        const Run run(preset("mlp"), "model=8", {shard("layers.0.weight", 1, "model")});
        QCOMPARE(run.text("layers.0.fc"), std::string("model:o"));   // the column split
        QCOMPARE(run.text("layers.0.relu"), std::string("model:o")); // the activation between them
        QCOMPARE(run.text("layers.1.fc"), std::string("model:i"));   // the row split that matches it
        // The activation between the linears is split on its feature dimension.
        const TensorId between = run.graph.op(*run.graph.findOp("layers.0.relu")).outputs.front();
        const Op& relu = run.graph.op(*run.graph.findOp("layers.0.relu"));
        QCOMPARE(outputSharding(relu, 0, run.strategy("layers.0.relu")).dims,
                 (std::vector<AxisSet>{0, axisBit(AxisId(0))}));
        Q_UNUSED(between);
        // Nothing beyond the row split's partial output was decided: it is an all-reduce boundary.
        QCOMPARE(run.result->stages[0].decidedAxes[run.graph.findOp("loss")->index()], 0);
        const std::string why = run.result->plan.whyOf(run.graph, *run.graph.findOp("layers.1.fc"), 0);
        QVERIFY2(why.find("propagated from layers.0.relu") != std::string::npos, why.c_str());
        QVERIFY2(why.find("tactic 1 shard(layers.0.weight, 1, model)") != std::string::npos, why.c_str());
    }
    void aReshapeCarriesHiddenToHeads() {
        // x[b,s,h] -> proj (h -> h) -> reshape [b,s,(n,d)] -> [b,s,n,d] -> softmax over d.
        const std::string text = R"json({"format":"shardscope-model","version":1,"name":"heads","tensors":[
          {"name":"x","shape":[8,128,1024],"role":"input"},
          {"name":"w","shape":[1024,1024],"role":"parameter"},
          {"name":"y","shape":[8,128,1024],"role":"activation"},
          {"name":"z","shape":[8,128,16,64],"role":"activation"},
          {"name":"p","shape":[8,128,16,64],"role":"activation"}],
          "ops":[
          {"name":"proj","kind":"matmul","inputs":["x","w"],"outputs":["y"],"rule":"([b,s,h],[h,e])->([b,s,e])"},
          {"name":"split_heads","kind":"reshape","inputs":["y"],"outputs":["z"],"rule":"([b,s,(n,d)])->([b,s,n,d])"},
          {"name":"attend","kind":"softmax","inputs":["z"],"outputs":["p"],"rule":"([b,s,n,d])->([b,s,n,d]) {d:local}"}]})json";
        const Run run(parseModelJson(text, "heads.model.json"), "model=8", {shard("w", 1, "model")});
        QCOMPARE(run.text("proj"), std::string("model:e"));
        QCOMPARE(run.text("split_heads"), std::string("model:n"));
        QCOMPARE(run.text("attend"), std::string("model:n"));
    }
    void conflictsNameBothSources() {
        const Run run(preset("mlp"), "model=8",
                      {shard("layers.0.weight", 1, "model"), shard("layers.0.weight", 0, "model")});
        QVERIFY(run.result->stages[0].step.conflicts.empty());
        const auto& conflicts = run.result->stages[1].step.conflicts;
        QVERIFY(!conflicts.empty());
        const std::string& c = conflicts.front();
        QVERIFY2(c.find("tactic 1 shard(layers.0.weight, 1, model)") != std::string::npos, c.c_str());
        QVERIFY2(c.find("tactic 2 shard(layers.0.weight, 0, model)") != std::string::npos, c.c_str());
        QCOMPARE(run.text("layers.0.fc"), std::string("model:o")); // the earlier tactic won
    }
    void provenanceNamesTheTacticOfEveryTensorItFixed() {
        const Run run(preset("gpt", {"layers=1"}), "data=4,model=2",
                      {tactic(TacticKind::Batch, "data"), tactic(TacticKind::Megatron, "model")});
        int inputs = 0, weights = 0;
        for (const TensorDecision& t : run.result->tensors) {
            const Tensor& tensor = run.graph.tensor(t.tensor);
            if (tensor.role == TensorRole::Input) {
                QCOMPARE(t.tactic, 0);
                ++inputs;
            } else {
                QCOMPARE(int(tensor.role), int(TensorRole::Parameter));
                QCOMPARE(t.tactic, 1);
                ++weights;
            }
        }
        QCOMPARE(inputs, 2); // tokens and labels
        QVERIFY(weights >= 5); // qkv, proj, fc1, fc2, embedding, lm head
        // An op a tactic decided through a tensor says so; every decided axis names its tactic.
        const Plan& p = run.result->plan;
        const std::string qkv = p.whyOf(run.graph, *run.graph.findOp("layers.0.attn.qkv"), 1);
        QVERIFY2(qkv.find("tactic 2 megatron(model) fixed layers.0.attn.qkv.weight") != std::string::npos, qkv.c_str());
        for (OpId o : run.graph.topoOrder())
            for (std::size_t a = 0; a < 2; ++a)
                if (run.result->stages.back().decidedAxes[o.index()] == 2)
                    QVERIFY(p.whyOf(run.graph, o, a).find("tactic ") != std::string::npos);
    }
    void autoAfterBatchNeverLosesToBatchAlone() {
        const Run batch(preset("gpt", {"layers=2"}), "data=4,model=2", {tactic(TacticKind::Batch, "data")});
        Tactic automatic = tactic(TacticKind::Auto, "model");
        const Run both(preset("gpt", {"layers=2"}), "data=4,model=2", {tactic(TacticKind::Batch, "data"), automatic});
        QVERIFY(batch.result->evaluation->feasible);
        QVERIFY(both.result->evaluation->stepTime <= batch.result->evaluation->stepTime * (1 + 1e-12));
        // auto kept every batch decision.
        for (OpId o : both.graph.topoOrder())
            if (batch.result->stages[0].decidedAxes[o.index()] > 0)
                QCOMPARE(both.result->plan.ops[o.index()].strategy.factorOfAxis[0],
                         batch.result->plan.ops[o.index()].strategy.factorOfAxis[0]);
    }
    void autoOverEveryAxisIsThePlainSearch() {
        Tactic everything = tactic(TacticKind::Auto, "");
        everything.algorithm = SearchAlgorithm::Pase;
        const Run run(preset("gpt", {"layers=2"}), "data=4,model=2", {everything});
        SearchRequest s;
        s.graph = sharedCopy(run.graph);
        s.cluster = sharedCopy(run.cluster);
        s.mesh = Mesh::parse("data=4,model=2");
        s.algorithm = SearchAlgorithm::Pase;
        s.open.zeroStage = true; // with no ZeRO tactic, auto leaves the stage to the search
        s.threads = 1;
        const auto plain = search(s);
        QCOMPARE(run.result->evaluation->stepTime, plain->evaluation->stepTime);
        QCOMPARE(run.result->plan.strategies(), plain->plan.strategies());
    }
    void badTacticsAreNamed() {
        auto error = [](const std::string& tactics) -> QString {
            try {
                parseTacticsJson(R"({"format":"shardscope-tactics","version":1,"tactics":[)" + tactics + "]}", "t.tactics.json");
            } catch (const InputError& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        QVERIFY(error(R"({"tactic":"pipeline","axis":"data"})").contains(QStringLiteral("unknown tactic 'pipeline'")));
        QVERIFY(error(R"({"tactic":"batch"})").contains(QStringLiteral("tactics[0].axis")));
        QVERIFY(error(R"({"tactic":"zero","stage":4,"axis":"data"})").contains(QStringLiteral("tactics[0].stage")));
        QVERIFY(error(R"({"tactic":"shard","tensors":[],"dim":0,"axis":"m"})").contains(QStringLiteral("names no tensor")));
        QVERIFY(error(R"({"tactic":"batch","axis":"data","dim":1})").contains(QStringLiteral("tactics[0].dim")));
        QVERIFY(error(R"({"tactic":"auto","algorithm":"genetic"})").contains(QStringLiteral("unknown algorithm")));
        try {
            const Run run(preset("mlp"), "data=8", {tactic(TacticKind::Megatron, "model")});
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("tactic 1 megatron(model): the mesh data=8 has no axis 'model'")),
                     e.what());
        }
    }
    void samplesRun_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("model");
        for (const char* f : {"bp", "bp-megatron", "bp-megatron-zero3", "bp-auto"})
            QTest::newRow(f) << QString::fromLatin1(f) << QStringLiteral("gpt");
        QTest::newRow("mixtral-ep") << QStringLiteral("mixtral-ep") << QStringLiteral("moe");
    }
    void samplesRun() {
        QFETCH(QString, file);
        QFETCH(QString, model);
        const auto tactics =
            loadTactics((QStringLiteral(SHARDSCOPE_SOURCE_DIR "/samples/tactics/") + file + QStringLiteral(".tactics.json")).toStdString());
        const Run run(preset(qPrintable(model)), "data=4,model=2", tactics);
        QCOMPARE(run.result->stages.size(), tactics.size());
        for (const TacticStage& s : run.result->stages)
            QVERIFY2(s.step.conflicts.empty(), s.step.conflicts.empty() ? "" : s.step.conflicts.front().c_str());
        // The last step holds no more memory per device than the first.
        QVERIFY(run.result->stages.back().step.peakMemory <= run.result->stages.front().step.peakMemory * (1 + 1e-12));
        if (model == QStringLiteral("moe")) {
            // Expert parallelism: tokens reach the experts by all-to-all.
            QVERIFY(run.result->stages[1].step.collectivesAdded.at("all-to-all") > 0);
        }
    }
    void planFilesRecordHowTheyWereBuilt() {
        const Run run(preset("gpt", {"layers=1"}), "data=4,model=2",
                      {tactic(TacticKind::Batch, "data"), tactic(TacticKind::Megatron, "model"), zero(1, "data")});
        const std::string text = planToJson(run.result->plan, run.graph, run.result->evaluation.get());
        const Plan back = parsePlanJson(text, "p.plan.json", run.graph);
        QCOMPARE(back.tactics, run.result->plan.tactics);
        QCOMPARE(back.tacticSteps.size(), std::size_t(3));
        QCOMPARE(back.tacticSteps[1].stepTime, run.result->stages[1].step.stepTime);
        QCOMPARE(back.tacticSteps[2].collectivesAdded, run.result->stages[2].step.collectivesAdded);
        for (std::size_t o = 0; o < run.graph.ops().size(); ++o)
            for (std::size_t a = 0; a < back.mesh.rank(); ++a)
                QCOMPARE(back.whyOf(run.graph, OpId(o), a), run.result->plan.whyOf(run.graph, OpId(o), a));
        QCOMPARE(back.settings.zeroStage, 1);
    }
};

QTEST_GUILESS_MAIN(TestTactics)
#include "tst_tactics.moc"
