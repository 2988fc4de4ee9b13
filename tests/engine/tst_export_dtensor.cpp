// The PyTorch DTensor export (engine/export/dtensor_*): the module is run by python3 against
// stand-ins for the torch APIs it calls (tests/engine/data/dtensor_harness.py), which record what it
// asks PyTorch to do; that is read back by the APIs' meaning into a plan, and Megatron's layout is
// checked style by style against its definition.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/export/dtensor_module.h"
#include "engine/plans/baselines.h"
#include "export_fixtures.h"
#include "engine/util/error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <map>

using namespace shardscope;
using shardscope::testing::gpt96;
using shardscope::testing::planOf;

namespace {

/// What the exported module of `plan` asked of torch, run by the harness on a model with `g`'s op names.
QJsonObject runExport(const Graph& g, const Plan& plan) {
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        return {};
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plan_dtensor.py"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QByteArray::fromStdString(dtensorModule(g, plan)));
    f.close();
    QStringList args{QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/engine/data/dtensor_harness.py"), path};
    for (const Op& op : g.ops())
        args << QString::fromStdString(op.name);
    QProcess run;
    run.start(python, args);
    run.waitForFinished(60000);
    if (run.exitCode() != 0)
        qWarning("%s", run.readAllStandardError().constData());
    return QJsonDocument::fromJson(run.readAllStandardOutput()).object();
}

/// Per module, the style parallelize_module was given: "ColwiseParallel(in -> out)" and so on.
std::map<QString, QString> stylesOf(const QJsonObject& run) {
    std::map<QString, QString> styles;
    for (const QJsonValue& v : run[QStringLiteral("calls")][QStringLiteral("parallelize_module")].toArray()) {
        const QJsonObject c = v.toObject();
        const QJsonObject a = c[QStringLiteral("args")].toObject();
        QString text = c[QStringLiteral("style")].toString();
        if (a.contains(QStringLiteral("sequence_dim")))
            text += QStringLiteral("(%1)").arg(a[QStringLiteral("sequence_dim")].toInt());
        else
            text += QStringLiteral("(%1 -> %2%3)")
                        .arg(a[QStringLiteral("input_layouts")].toString(), a[QStringLiteral("output_layouts")].toString(),
                             a.contains(QStringLiteral("use_local_output")) ? QStringLiteral(", DTensor") : QString());
        styles[c[QStringLiteral("module")].toString()] = text;
    }
    return styles;
}

void refused(const Graph& g, const Plan& p, const char* expected) {
    try {
        dtensorModule(g, p);
        QFAIL(qPrintable(QStringLiteral("exported; expected a refusal naming '%1'").arg(QLatin1String(expected))));
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
}

} // namespace

class TestExportDtensor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 runs the exported modules (test.sh installs it)");
    }

    void modulesRoundTrip_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<QString>("cut");
        const int none = int(Recompute::None), full = int(Recompute::Full);
        const int onef = int(Schedule::OneFOneB);
        QTest::newRow("DDP, accumulation") << "data=64" << "dp" << 4 << none << onef << 1 << "";
        QTest::newRow("FSDP") << "data=64" << "zero3" << 1 << full << onef << 1 << "";
        QTest::newRow("TP + DDP") << "data=8,model=8" << "megatron" << 1 << none << onef << 1 << "";
        QTest::newRow("TP + SP + ZeRO-2") << "data=8,model=8" << "megatron-sp+zero2" << 2 << full << onef << 1 << "";
        QTest::newRow("PP 1F1B + FSDP + TP") << "pipe=4,data=2,model=8" << "megatron-sp+zero3" << 48 << full << onef << 1 << "";
        QTest::newRow("PP interleaved") << "pipe=4,data=16" << "dp" << 24 << none << int(Schedule::Interleaved) << 2 << "";
        QTest::newRow("PP GPipe, uneven") << "pipe=4,data=16" << "zero3" << 24 << none << int(Schedule::GPipe) << 1
                                          << "20,28,24,24";
    }
    void modulesRoundTrip() {
        // Export, run, read back what torch was asked (mesh dims; fully_shard with or without
        // resharding after forward = ZeRO-3 / ZeRO-2, replicate = ZeRO-0; checkpoint_wrapper on every
        // layer = full recomputation; SequenceParallel styles = megatron-sp, others megatron; the
        // schedule class; layers per model chunk), rebuild: the same plan, settings and cut.
        QFETCH(QString, mesh);
        QFETCH(QString, spec);
        QFETCH(int, microbatches);
        QFETCH(int, recompute);
        QFETCH(int, schedule);
        QFETCH(int, virtualStages);
        QFETCH(QString, cut);
        StepSettings s;
        s.microbatches = microbatches;
        s.recompute = static_cast<Recompute>(recompute);
        s.schedule = static_cast<Schedule>(schedule);
        s.virtualStages = virtualStages;
        std::vector<int> chunks;
        for (const QString& n : cut.split(QLatin1Char(','), Qt::SkipEmptyParts))
            chunks.push_back(n.toInt());
        const Graph g = gpt96(microbatches);
        const Plan p = planOf(g, Mesh::parse(mesh.toStdString()), spec.toStdString(), s, chunks);
        const QJsonObject run = runExport(g, p);
        QVERIFY(!run.isEmpty());
        const QJsonObject calls = run[QStringLiteral("calls")].toObject();

        std::string meshText;
        const QJsonArray names = calls[QStringLiteral("mesh")][QStringLiteral("names")].toArray();
        const QJsonArray shape = calls[QStringLiteral("mesh")][QStringLiteral("shape")].toArray();
        for (qsizetype a = 0; a < names.size(); ++a)
            meshText += (a ? "," : "") + names[a].toString().toStdString() + "=" + std::to_string(shape[a].toInt());
        const QJsonArray sharded = calls[QStringLiteral("fully_shard")].toArray();
        int zero = 0;
        if (!sharded.isEmpty()) {
            zero = run[QStringLiteral("reshard_after_forward")].toBool() ? 3 : 2;
            QCOMPARE(sharded.size(), qsizetype(96 + 1)); // every layer, then the root
            QCOMPARE(sharded.last()[QStringLiteral("module")].toString(), QString());
            QCOMPARE(sharded.first()[QStringLiteral("mesh")].toString(), QStringLiteral("data"));
        } else {
            QCOMPARE(calls[QStringLiteral("replicate")].toArray().size(), qsizetype(1));
        }
        StepSettings back;
        back.microbatches = run[QStringLiteral("n_microbatches")].toInt();
        const qsizetype wrapped = calls[QStringLiteral("checkpoint_wrapper")].toArray().size();
        QVERIFY(wrapped == 0 || wrapped == 96);
        back.recompute = wrapped ? Recompute::Full : Recompute::None;
        const QString scheduleName = run[QStringLiteral("schedule")].toString();
        back.schedule = scheduleName == QStringLiteral("ScheduleGPipe")             ? Schedule::GPipe
                        : scheduleName == QStringLiteral("ScheduleInterleaved1F1B") ? Schedule::Interleaved
                                                                                    : Schedule::OneFOneB;
        const Mesh rebuiltMesh = Mesh::parse(meshText);
        std::vector<int> backCut;
        const QJsonArray stages = run[QStringLiteral("stage_modules")].toArray();
        for (const QJsonValue& chunk : stages) {
            int layers = 0;
            for (const QJsonValue& name : chunk.toArray())
                layers += name.toString().startsWith(QStringLiteral("layers."));
            backCut.push_back(layers);
        }
        back.virtualStages = stages.isEmpty() ? 1 : int(stages.size()) / rebuiltMesh.pipelineStages();
        if (!stages.isEmpty()) // pipe rank r runs chunks r, r + P, ...
            QCOMPARE(run[QStringLiteral("rank_chunks")][1][0], stages[1]);
        const std::map<QString, QString> styles = stylesOf(run);
        bool sequence = false;
        for (const auto& [module, style] : styles)
            sequence = sequence || style.startsWith(QStringLiteral("SequenceParallel"));
        const std::string pattern = styles.empty() ? "dp" : sequence ? "megatron-sp" : "megatron";
        const Plan rebuilt = planOf(gpt96(back.microbatches), rebuiltMesh, baselineSpec(pattern, zero), back,
                                    rebuiltMesh.pipelineStages() > 1 ? backCut : std::vector<int>{});
        QCOMPARE(rebuilt.mesh.toString(), p.mesh.toString());
        QCOMPARE(rebuilt.strategies(), p.strategies());
        QCOMPARE(rebuilt.settings.zeroStage, p.settings.zeroStage);
        QCOMPARE(rebuilt.settings.zeroAxes, p.settings.zeroAxes);
        QCOMPARE(rebuilt.settings.microbatches, p.settings.microbatches);
        QCOMPARE(rebuilt.settings.recompute, p.settings.recompute);
        QCOMPARE(rebuilt.settings.schedule, p.settings.schedule);
        QCOMPARE(rebuilt.settings.virtualStages, p.settings.virtualStages);
        QCOMPARE(rebuilt.pipeline.chunkBlocks, p.pipeline.chunkBlocks);
    }

    void megatronsLayoutByItsDefinition() {
        // Megatron-LM (Shoeybi et al. 2019): in each attention and MLP the first GEMM is split by
        // columns (its output features), the second by rows (its input features) and the pair's
        // output all-reduced; the embedding is split by vocabulary rows and the head by vocabulary
        // columns with a vocabulary-parallel loss. With sequence parallelism (Korthikanti et al.
        // 2022) the norms run on sequence shards [b, s/t, h], the first GEMM all-gathers them
        // (input Shard(1)) and the second reduce-scatters to them (output Shard(1)).
        StepSettings s;
        const Graph g = gpt96(1);
        const Mesh mesh = Mesh::parse("data=8,model=8");
        const QString col = QStringLiteral("ColwiseParallel(%1 -> Shard(-1))"), row = QStringLiteral("RowwiseParallel(Shard(-1) -> %1)");
        for (const bool sp : {false, true}) {
            const std::map<QString, QString> styles = stylesOf(runExport(g, planOf(g, mesh, sp ? "megatron-sp" : "megatron", s)));
            const QString gathered = sp ? QStringLiteral("Shard(1)") : QStringLiteral("Replicate()");
            for (int i = 0; i < 96; ++i) {
                const QString layer = QStringLiteral("layers.%1.").arg(i);
                QCOMPARE(styles.at(layer + QStringLiteral("attn.qkv")), col.arg(gathered));
                QCOMPARE(styles.at(layer + QStringLiteral("mlp.fc1")), col.arg(gathered));
                QCOMPARE(styles.at(layer + QStringLiteral("attn.proj")), row.arg(gathered));
                QCOMPARE(styles.at(layer + QStringLiteral("mlp.fc2")), row.arg(gathered));
                QCOMPARE(styles.count(layer + QStringLiteral("norm1")), std::size_t(sp));
                if (sp)
                    QCOMPARE(styles.at(layer + QStringLiteral("norm2")), QStringLiteral("SequenceParallel(1)"));
            }
            QCOMPARE(styles.at(QStringLiteral("embed")), QStringLiteral("RowwiseParallel(Replicate() -> %1)").arg(gathered));
            QCOMPARE(styles.at(QStringLiteral("lm_head")), QStringLiteral("ColwiseParallel(%1 -> Shard(-1), DTensor)").arg(gathered));
            QCOMPARE(styles.size(), std::size_t(96 * (sp ? 6 : 4) + 2 + (sp ? 2 : 0))); // + final norm, position table
        }
    }

    void aPlanOffMegatronsLayoutExportsWhereStylesExpressIt() {
        // The head kept whole (replicated over model) in Megatron's layout: the final norm's output is
        // whole already, so the head needs no style and the rest is unchanged.
        StepSettings s;
        const Graph g = gpt96(1);
        Plan p = planOf(g, Mesh::parse("data=8,model=8"), "megatron", s);
        for (const char* name : {"lm_head", "loss"}) {
            OpStrategy& st = p.ops[g.findOp(name)->index()].strategy;
            st.factorOfAxis[1] = -1;
        }
        const std::map<QString, QString> styles = stylesOf(runExport(g, p));
        QCOMPARE(styles.count(QStringLiteral("lm_head")), std::size_t(0));
        QCOMPARE(styles.at(QStringLiteral("layers.95.mlp.fc2")), QStringLiteral("RowwiseParallel(Shard(-1) -> Replicate())"));
    }

    void whatDtensorCannotExpressIsRefused() {
        StepSettings s;
        const Graph g = gpt96(1);
        const Mesh mesh = Mesh::parse("data=8,model=8");
        refused(g, planOf(g, mesh, "megatron+zero1", s), "ZeRO-1 has no FSDP2 setting");
        StepSettings selective = s;
        selective.recompute = Recompute::Selective;
        refused(g, planOf(g, mesh, "megatron", selective), "recomputes attention only");
        refused(g, planOf(g, Mesh::parse("data=4,seq=2,model=8"), "megatron", s), "mesh axis 'seq'");
        // fc1 kept whole and the GELU after it split: a slice between two unstyled ops. (The GELU kept
        // whole after a split fc1 is expressible: ColwiseParallel(output_layouts=Replicate()).)
        Plan gelu = planOf(g, mesh, "megatron", s);
        gelu.ops[g.findOp("layers.3.mlp.fc1")->index()].strategy.factorOfAxis[1] = -1;
        refused(g, gelu, "op layers.3.mlp.gelu reads layers.3.mlp.fc1.out as Shard(-1) on model but it arrives as Replicate()");
        Plan gathered = planOf(g, mesh, "megatron", s);
        gathered.ops[g.findOp("layers.3.mlp.gelu")->index()].strategy.factorOfAxis[1] = -1;
        const std::map<QString, QString> styles = stylesOf(runExport(g, gathered));
        QCOMPARE(styles.at(QStringLiteral("layers.3.mlp.fc1")), QStringLiteral("ColwiseParallel(Replicate() -> Replicate())"));
        QCOMPARE(styles.at(QStringLiteral("layers.3.mlp.fc2")), QStringLiteral("RowwiseParallel(Replicate() -> Replicate())"));
        // The data axis splitting the embedding's hidden features instead of the batch.
        Plan hidden = planOf(g, mesh, "megatron", s);
        const Op& embed = g.op(*g.findOp("embed"));
        hidden.ops[g.findOp("embed")->index()].strategy.factorOfAxis[0] = embed.rule.findFactor("h");
        refused(g, hidden, "op embed is data:h");
    }
};

QTEST_GUILESS_MAIN(TestExportDtensor)
#include "tst_export_dtensor.moc"
