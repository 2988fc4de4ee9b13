// File formats (docs/DESIGN.md, Files): round trips, and bad input of every kind rejected with a message that
// names the file, the field and the op.

#include <QTemporaryDir>
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/io/cluster_file.h"
#include "engine/io/file_kind.h"
#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/io/plan_file.h"
#include "engine/io/scenario.h"
#include "engine/plans/baselines.h"
#include "engine/util/error.h"

using namespace shardscope;

namespace {

/// A two-op model document with `opsJson` as its op list (tensors x, w, y, z).
std::string mlpDoc(const std::string& opsJson, const std::string& extra = "") {
    return R"({"format":"shardscope-model","version":1,"name":"t",)" + extra + R"("tensors":[
      {"name":"x","shape":[4,8],"dtype":"bf16","role":"input"},
      {"name":"w","shape":[8,16],"dtype":"bf16","role":"parameter"},
      {"name":"y","shape":[4,16],"dtype":"bf16","role":"activation"},
      {"name":"z","shape":[4,16],"dtype":"bf16","role":"activation"}],
      "ops":[)" + opsJson + "]}";
}

const char* kFc = R"j({"name":"fc","kind":"matmul","inputs":["x","w"],"outputs":["y"],"rule":"([b,h],[h,f])->([b,f])"})j";
const char* kRelu = R"j({"name":"act","kind":"relu","inputs":["y"],"outputs":["z"],"rule":"([b,f])->([b,f])"})j";

QString modelError(const std::string& text) {
    try {
        parseModelJson(text, "bad.model.json");
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestFiles : public QObject {
    Q_OBJECT
private slots:
    void goodModelParses() {
        const Graph g = parseModelJson(mlpDoc(std::string(kFc) + "," + kRelu), "ok.model.json");
        QCOMPARE(g.ops().size(), std::size_t(2));
        QCOMPARE(g.parameterCount(), 128.0);
    }
    void badModels_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char* name, const std::string& text, QStringList expected) {
            QTest::newRow(name) << QString::fromStdString(text) << expected;
        };
        row("malformed JSON", "{\"format\": \"shardscope-model\",\n \"version\": 1,,}",
            {QStringLiteral("bad.model.json"), QStringLiteral("malformed JSON at line 2")});
        row("unknown op kind",
            mlpDoc(R"j({"name":"fc","kind":"matmull","inputs":["x","w"],"outputs":["y"],"rule":"([b,h],[h,f])->([b,f])"})j"),
            {QStringLiteral("'fc'"), QStringLiteral("kind"), QStringLiteral("unknown op kind 'matmull'")});
        row("shape mismatch",
            mlpDoc(R"j({"name":"fc","kind":"matmul","inputs":["x","w"],"outputs":["y"],"rule":"([b,h],[f,h])->([b,f])"})j"),
            {QStringLiteral("op 'fc'"), QStringLiteral("field 'rule'")});
        row("cycle",
            mlpDoc(R"j({"name":"a","kind":"relu","inputs":["z"],"outputs":["y"],"rule":"([b,f])->([b,f])"},)j" +
                   std::string(kRelu)),
            {QStringLiteral("cycle")});
        row("unknown tensor",
            mlpDoc(R"j({"name":"fc","kind":"matmul","inputs":["x","v"],"outputs":["y"],"rule":"([b,h],[h,f])->([b,f])"})j"),
            {QStringLiteral("unknown tensor 'v'")});
        row("unknown field", mlpDoc(kFc, R"("author":"me",)"), {QStringLiteral("field 'author': unknown field")});
        row("window outside an attention core",
            mlpDoc(R"j({"name":"fc","kind":"matmul","inputs":["x","w"],"outputs":["y"],"rule":"([b,h],[h,f])->([b,f])","window":8})j"),
            {QStringLiteral("op 'fc'"), QStringLiteral("field 'window' needs an attention-core op")});
        row("negative window",
            mlpDoc(R"j({"name":"fc","kind":"matmul","inputs":["x","w"],"outputs":["y"],"rule":"([b,h],[h,f])->([b,f])","window":-1})j"),
            {QStringLiteral("'fc'.window"), QStringLiteral("must be a key count")});
        row("unknown version", R"({"format":"shardscope-model","version":7,"tensors":[],"ops":[]})",
            {QStringLiteral("unsupported version 7")});
        row("wrong format", R"({"format":"shardscope-plan","version":1})", {QStringLiteral("field 'format'")});
        row("missing field", R"({"format":"shardscope-model","version":1,"ops":[]})",
            {QStringLiteral("field 'tensors': missing")});
    }
    void badModels() {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        const QString e = modelError(text.toStdString());
        QVERIFY2(!e.isEmpty(), "no error");
        for (const QString& part : expected)
            QVERIFY2(e.contains(part), qPrintable(e));
    }
    void presetModelRoundTrips() {
        // Sliding-window layers and attention sinks travel too.
        const Graph g = loadModel(ModelRequest{"moe", {"layers=2", "sliding_window=64", "full_every=2", "attention_sinks=true"},
                                               std::nullopt},
                                  1);
        QCOMPARE(g.op(*g.findOp("layers.0.attn.context")).window, std::int64_t(64));
        const Graph back = parseModelJson(modelToJson(g), "moe.model.json");
        QCOMPARE(back.ops().size(), g.ops().size());
        QCOMPARE(back.parameterCount(), g.parameterCount());
        QCOMPARE(modelToJson(back), modelToJson(g));
        QCOMPARE(back.op(*back.findOp("layers.0.attn.context")).window, std::int64_t(64));
        // Same evaluation from the re-read graph.
        const Cluster c = clusterPreset("dgx-a100", 1);
        const Mesh m = Mesh::parse("data=4,model=2");
        const auto e1 = evaluate(CostModel(g, c, m, {}), baselinePlan(g, m, "megatron", {}));
        const auto e2 = evaluate(CostModel(back, c, m, {}), baselinePlan(back, m, "megatron", {}));
        QCOMPARE(e2->stepTime, e1->stepTime);
        QCOMPARE(e2->peakMemory, e1->peakMemory);
    }
    void clusterRoundTripsAndRejectsBadFigures() {
        const Cluster c = clusterPreset("dgx-h100", 4);
        const Cluster back = parseClusterJson(clusterToJson(c), "h100.cluster.json");
        QCOMPARE(back.deviceCount(), 32);
        QCOMPARE(back.levels[1].bandwidth, 50e9);
        QCOMPARE(back.levels[1].efficiency, c.levels[1].efficiency);
        QCOMPARE(back.levels[1].latency, c.levels[1].latency);
        QCOMPARE(back.levels[1].baseLatency, c.levels[1].baseLatency);
        QCOMPARE(back.device.memoryEfficiency, c.device.memoryEfficiency);
        QCOMPARE(back.device.attentionEfficiency, c.device.attentionEfficiency);
        QCOMPARE(back.device.attentionDropoutEfficiency, c.device.attentionDropoutEfficiency);
        // A version 3 file has no attention_dropout_efficiency: dropout costs the kernel nothing extra.
        nlohmann::json v3 = nlohmann::json::parse(clusterToJson(c));
        v3["version"] = 3;
        v3["device"].erase("attention_dropout_efficiency");
        QCOMPARE(parseClusterJson(v3.dump(), "v3.cluster.json").device.attentionDropoutEfficiency, c.device.attentionEfficiency);
        v3["device"]["attention_dropout_efficiency"] = 0.2;
        try {
            parseClusterJson(v3.dump(), "v3.cluster.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("attention_dropout_efficiency")), e.what());
        }
        std::string bad = clusterToJson(c);
        const std::string needle = "\"bandwidth\": 450000000000.0";
        bad.replace(bad.find(needle), needle.size(), "\"bandwidth\": -1");
        try {
            parseClusterJson(bad, "bad.cluster.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("levels[0].bandwidth")), e.what());
        }
        // Nine link levels (the eight allowed, and one more of one device each) are refused by name.
        Cluster deep = c;
        while (deep.levels.size() < 9)
            deep.levels.push_back(LinkLevel{"extra", 1, 10e9, 1e-6, 1, 1e-6});
        try {
            parseClusterJson(clusterToJson(deep), "deep.cluster.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("deep.cluster.json: field 'levels' has 9 levels")),
                     e.what());
        }
    }
    void nvlinkDomainsFillUpToTheirCapacity() {
        // --nodes counts trays of 4; up to 18 share one NVLink domain; more deal into equal domains of
        // the largest divisor of the count between 9 and 18.
        struct Case {
            int trays, domain, racks;
        };
        for (const Case k : {Case{1, 1, 1}, Case{8, 8, 1}, Case{18, 18, 1}, Case{36, 18, 2}, Case{64, 16, 4}, Case{90, 18, 5},
                             Case{100, 10, 10}}) {
            const Cluster c = clusterPreset("gb200-nvl72", k.trays);
            QCOMPARE(c.levels[0].size, 4);
            QCOMPARE(c.levels[1].size, k.domain);
            QCOMPARE(c.levels[2].size, k.racks);
            QCOMPARE(c.scaleUpSize(), 4 * k.domain);
            // The file keeps the capacity, and --nodes on the file deals the same way.
            const Cluster file = parseClusterJson(clusterToJson(clusterPreset("gb200-nvl72", 1)), "nvl.cluster.json");
            QCOMPARE(clusterToJson(withNodes(file, k.trays)), clusterToJson(c));
        }
        for (const int trays : {19, 38}) {
            try {
                clusterPreset("gb200-nvl72", trays);
                QFAIL("no error");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("do not split into equal nvlink groups of 9 to 18")),
                         e.what());
            }
        }
        // A capacity below the level's size is refused by name.
        Cluster bad = clusterPreset("gb200-nvl72", 18);
        bad.levels[1].capacity = 9;
        try {
            parseClusterJson(clusterToJson(bad), "bad.cluster.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("levels[1].capacity")), e.what());
        }
    }
    void precisionNeedsTheDevicesTensorCores() {
        // FP8 needs an FP8 peak (not the A100's), MXFP8 MX tensor cores (Blackwell's, not Hopper's).
        ScenarioRequest r;
        r.model.spec = "gpt";
        auto message = [&](const std::string& cluster, Precision p) -> QString {
            r.cluster = cluster;
            r.precision = p;
            try {
                const Scenario s = loadScenario(r);
                return QStringLiteral("ok ") + QString::fromStdString(std::string(precisionName(s.plan.settings.precision)));
            } catch (const InputError& e) {
                return QString::fromUtf8(e.what());
            }
        };
        QVERIFY(message("dgx-a100", Precision::FP8).contains(QStringLiteral("A100-SXM4-80GB has no FP8 peak")));
        QVERIFY(message("dgx-h100", Precision::MXFP8).contains(QStringLiteral("no block-scaled (MX) tensor cores")));
        QCOMPARE(message("dgx-h100", Precision::FP8), QStringLiteral("ok fp8"));
        QCOMPARE(message("dgx-b200", Precision::MXFP8), QStringLiteral("ok mxfp8"));
        QCOMPARE(message("mi300x", Precision::FP8), QStringLiteral("ok fp8"));
    }
    void sampleClustersAreThePresets() {
        // samples/clusters/ holds each preset as its cluster file, every figure the same.
        for (const ClusterPresetInfo& info : clusterPresets()) {
            const std::string path = SHARDSCOPE_SOURCE_DIR "/samples/clusters/" + info.name + ".cluster.json";
            const Cluster file = parseClusterJson(readTextFile(path), path);
            QCOMPARE(clusterToJson(file), clusterToJson(clusterPreset(info.name, 1)));
        }
    }
    void planRoundTripsToTheSameCost() {
        QTemporaryDir dir;
        const Graph g = loadModel(ModelRequest{"gpt", {}, std::nullopt}, 1);
        const Cluster c = clusterPreset("dgx-a100", 2);
        const Mesh m = Mesh::parse("data=2,model=8");
        Plan p = baselinePlan(g, m, "megatron-sp+zero2", {});
        p.ops[3].locked = true;
        p.settings.bucketBytes = 40e6;
        p.settings.loss = LossKernel::Fused;
        const CostModel cm(g, c, m, p.settings);
        const auto e = evaluate(cm, p);
        const std::string path = dir.filePath(QStringLiteral("p.plan.json")).toStdString();
        savePlan(path, p, g, e.get());
        const Plan back = parsePlanJson(readTextFile(path), path, g);
        QCOMPARE(back.strategies(), p.strategies());
        QCOMPARE(back.ops, p.ops); // strategies and locks; no reasons on either side
        QCOMPARE(back.settings, p.settings);
        QCOMPARE(evaluate(CostModel(g, c, back.mesh, back.settings), back)->stepTime, e->stepTime);
    }
    void planErrors_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        // The megatron plan of the gpt preset on data=2,model=8, edited.
        QTest::newRow("non-divisible split") << QStringLiteral("\"model\": \"g\"") << QStringLiteral("\"model\": \"s\"")
                                             << QStringLiteral("");
        QTest::newRow("unknown factor") << QStringLiteral("\"model\": \"f\"") << QStringLiteral("\"model\": \"zz\"")
                                        << QStringLiteral("has no factor 'zz'");
        QTest::newRow("unknown op") << QStringLiteral("\"op\": \"lm_head\"") << QStringLiteral("\"op\": \"lm_tail\"")
                                    << QStringLiteral("no op 'lm_tail'");
        QTest::newRow("unknown axis") << QStringLiteral("\"data\": \"b\"") << QStringLiteral("\"pipe\": \"b\"")
                                      << QStringLiteral("not an axis of mesh");
        QTest::newRow("bucket size") << QStringLiteral("\"bucket_mb\": 25.0") << QStringLiteral("\"bucket_mb\": -1")
                                     << QStringLiteral("field 'settings.bucket_mb': must be between 0.001 and 100000");
        QTest::newRow("loss kernel") << QStringLiteral("\"loss\": \"unfused\"") << QStringLiteral("\"loss\": \"fast\"")
                                     << QStringLiteral("field 'settings.loss': must be unfused or fused");
    }
    void planErrors() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        // seq=1020 is not divisible by 8, so splitting s over model is a non-divisible split.
        const Graph g = loadModel(ModelRequest{"gpt", {"layers=1", "seq=1020"}, std::nullopt}, 1);
        const Mesh m = Mesh::parse("data=2,model=8");
        std::string text = planToJson(baselinePlan(g, m, "megatron", {}), g, nullptr);
        const std::string f = from.toStdString();
        // Indentation-free matching: the writer puts one space after each colon.
        const auto at = text.find(f);
        QVERIFY2(at != std::string::npos, f.c_str());
        text.replace(at, f.size(), to.toStdString());
        try {
            parsePlanJson(text, "edited.plan.json", g);
            QFAIL("no error");
        } catch (const InputError& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains(QStringLiteral("edited.plan.json")), e.what());
            if (expected.isEmpty())
                QVERIFY2(msg.contains(QStringLiteral("not divisible by 8")) && msg.contains(QStringLiteral("op '")), e.what());
            else
                QVERIFY2(msg.contains(expected), e.what());
        }
    }
    void scenarioRejectsImpossibleMesh() {
        ScenarioRequest r;
        r.model.spec = "gpt";
        r.cluster = "dgx-a100";
        r.mesh = "data=4,model=4";
        try {
            loadScenario(r);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("has 16 devices but cluster dgx-a100 has 8")),
                     e.what());
        }
    }
    void filesAreToldApartByContent() {
        const QString samples = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/samples/");
        auto kind = [&](const char* rel) { return sniffFileKind((samples + QLatin1String(rel)).toStdString()); };
        QCOMPARE(kind("models/two-layer-mlp.model.json"), FileKind::Model);
        QCOMPARE(kind("models/hf-gpt2/config.json"), FileKind::Model);
        QCOMPARE(kind("clusters/dgx-a100.cluster.json"), FileKind::Cluster);
        QCOMPARE(kind("plans/gpt2-small-megatron.plan.json"), FileKind::Plan);
        QCOMPARE(sniffFileKind("/nonexistent/model.onnx"), FileKind::Model);
        QCOMPARE(sniffFileKind("/nonexistent/x.json"), FileKind::Unknown);
        QTemporaryDir dir;
        const QString odd = dir.filePath(QStringLiteral("odd.json"));
        writeFileAtomically(odd.toStdString(), R"({"format":"something-else","version":1})");
        QCOMPARE(sniffFileKind(odd.toStdString()), FileKind::Unknown);
        writeFileAtomically(odd.toStdString(), "{ not json");
        QCOMPARE(sniffFileKind(odd.toStdString()), FileKind::Unknown);
        QCOMPARE(kind("tactics/bp.tactics.json"), FileKind::Tactics);
        // Only a top-level field counts: a nested "format" or "model_type" does not.
        writeFileAtomically(odd.toStdString(),
                            R"({"meta":{"format":"shardscope-plan","model_type":"gpt2"},"format":"shardscope-cluster"})");
        QCOMPARE(sniffFileKind(odd.toStdString()), FileKind::Cluster);
        writeFileAtomically(odd.toStdString(), R"([{"format":"shardscope-plan"}])");
        QCOMPARE(sniffFileKind(odd.toStdString()), FileKind::Unknown);
        // The kind is told from the head: what follows the field is the loader's to read (and refuse).
        writeFileAtomically(odd.toStdString(), R"({"format":"shardscope-plan", "version": 1, )" + std::string(1 << 20, '@'));
        QCOMPARE(sniffFileKind(odd.toStdString()), FileKind::Plan);
    }
    void atomicWriteReplacesWhole() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f.json")).toStdString();
        writeFileAtomically(path, "first");
        writeFileAtomically(path, "second");
        QCOMPARE(readTextFile(path), std::string("second"));
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
    }
};

QTEST_GUILESS_MAIN(TestFiles)
#include "tst_files.moc"
