// Plan exports (engine/export): Megatron-LM arguments for framework-shaped plans, read back by the
// flags' documented meaning into the same plan, and refusals that name what Megatron cannot express.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/export/deepspeed_config.h"
#include "engine/export/jax_module.h"
#include "engine/export/megatron_args.h"
#include "engine/export/torchtitan_config.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "export_fixtures.h"
#include "engine/util/error.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QStandardPaths>

#include <map>

using namespace shardscope;
using shardscope::testing::gpt96;
using shardscope::testing::planOf;

namespace {

/// The plan Megatron-LM runs for `args` on `devices` GPUs of a 96-layer GPT with batch 1536, rebuilt
/// from the flags' documented meaning.
Plan readBack(const MegatronArguments& args, int devices) {
    std::map<std::string, std::string> flags(args.begin(), args.end());
    auto number = [&](const std::string& f, int otherwise) { return flags.count(f) ? std::stoi(flags[f]) : otherwise; };
    const int tp = number("--tensor-model-parallel-size", 1), pp = number("--pipeline-model-parallel-size", 1);
    const int cp = number("--context-parallel-size", 1);
    const int dp = devices / tp / pp / cp;
    StepSettings s;
    s.microbatches = number("--global-batch-size", 0) / dp / number("--micro-batch-size", 1);
    s.zeroStage = flags.count("--use-distributed-optimizer") ? 1 : 0;
    s.recompute = !flags.count("--recompute-granularity")       ? Recompute::None
                  : flags["--recompute-granularity"] == "full" ? Recompute::Full
                                                               : Recompute::Selective;
    s.precision = flags["--fp8-recipe"] == "mxfp8" ? Precision::MXFP8
                  : flags.count("--fp8-format")    ? Precision::FP8
                                                   : Precision::BF16;
    s.loss = flags.count("--cross-entropy-loss-fusion") && flags["--cross-entropy-fusion-impl"] == "te" ? LossKernel::Fused
                                                                                                      : LossKernel::Unfused;
    std::vector<int> cut;
    if (flags.count("--num-layers-per-virtual-pipeline-stage")) {
        s.schedule = Schedule::Interleaved;
        s.virtualStages = 96 / pp / number("--num-layers-per-virtual-pipeline-stage", 1);
    } else if (flags.count("--decoder-first-pipeline-num-layers") || flags.count("--decoder-last-pipeline-num-layers")) {
        // Megatron: the first and last stage take their counts, the rest share what is left evenly.
        const int first = number("--decoder-first-pipeline-num-layers", -1), last = number("--decoder-last-pipeline-num-layers", -1);
        const int fixed = (first > 0) + (last > 0);
        const int rest = 96 - std::max(first, 0) - std::max(last, 0);
        cut.assign(std::size_t(pp), rest / (pp - fixed));
        if (first > 0)
            cut.front() = first;
        if (last > 0)
            cut.back() = last;
    }
    std::string mesh = (pp > 1 ? "pipe=" + std::to_string(pp) + "," : "") + "data=" + std::to_string(dp);
    if (cp > 1) // context parallelism: the sequence split over its own axis
        mesh += ",seq=" + std::to_string(cp);
    if (tp > 1)
        mesh += ",model=" + std::to_string(tp);
    const std::string pattern = tp == 1 ? "dp" : flags.count("--sequence-parallel") ? "megatron-sp" : "megatron";
    const Graph g = gpt96(s.microbatches);
    Plan p = planOf(g, Mesh::parse(mesh), baselineSpec(pattern, s.zeroStage), s, cut);
    return p;
}

enum class Format { Megatron, Deepspeed, Torchtitan };

void refused(const Graph& g, const Plan& p, const char* expected, Format format = Format::Megatron) {
    try {
        if (format == Format::Deepspeed)
            deepspeedConfig(g, p, 1536);
        else if (format == Format::Torchtitan)
            torchtitanConfig(g, p, 1536, 256);
        else
            megatronArguments(g, p, 1536);
        QFAIL(qPrintable(QStringLiteral("exported; expected a refusal naming '%1'").arg(QLatin1String(expected))));
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void theHeadersExample() {
        // megatron-sp+zero1 on pipe=8,data=16,model=8, 96 layers, 96 micro-batches (1536 / 16 data
        // replicas / 96 = 1 sequence each), interleaved over 3 chunks a stage (96 / 8 / 3 = 4 layers a
        // chunk), full recomputation, overlap on.
        StepSettings s;
        s.microbatches = 96;
        s.recompute = Recompute::Full;
        s.schedule = Schedule::Interleaved;
        s.virtualStages = 3;
        const Graph g = gpt96(96);
        const Plan p = planOf(g, Mesh::parse("pipe=8,data=16,model=8"), "megatron-sp+zero1", s);
        const MegatronArguments expected{{"--tensor-model-parallel-size", "8"},
                                         {"--sequence-parallel", ""},
                                         {"--pipeline-model-parallel-size", "8"},
                                         {"--num-layers-per-virtual-pipeline-stage", "4"},
                                         {"--use-distributed-optimizer", ""},
                                         {"--recompute-granularity", "full"},
                                         {"--recompute-method", "uniform"},
                                         {"--recompute-num-layers", "1"},
                                         {"--micro-batch-size", "1"},
                                         {"--global-batch-size", "1536"},
                                         {"--overlap-grad-reduce", ""},
                                         {"--overlap-param-gather", ""}};
        QCOMPARE(megatronArguments(g, p, 1536), expected);
        QVERIFY(megatronCommandLine(expected).find("--sequence-parallel \\\n--pipeline-model-parallel-size 8") !=
                std::string::npos);
    }

    void frameworkShapedPlansRoundTrip_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<QString>("cut");
        QTest::addColumn<int>("precision");
        QTest::addColumn<bool>("fusedLoss");
        const int bf16 = int(Precision::BF16), fp8 = int(Precision::FP8), mxfp8 = int(Precision::MXFP8);
        QTest::newRow("dp") << "data=64" << "dp" << 1 << int(Recompute::None) << 1 << "" << bf16 << false;
        QTest::newRow("megatron") << "data=8,model=8" << "megatron" << 4 << int(Recompute::Selective) << 1 << "" << bf16 << false;
        QTest::newRow("megatron-sp+zero1, fp8") << "data=8,model=8" << "megatron-sp+zero1" << 2 << int(Recompute::Full) << 1
                                                << "" << fp8 << true;
        QTest::newRow("PTD-P 1F1B") << "pipe=4,data=2,model=8" << "megatron-sp+zero1" << 96 << int(Recompute::Full) << 1 << ""
                                    << bf16 << false;
        QTest::newRow("PTD-P interleaved") << "pipe=4,data=2,model=8" << "megatron" << 48 << int(Recompute::Full) << 2 << ""
                                           << bf16 << false;
        QTest::newRow("context parallel, mxfp8") << "data=4,seq=2,model=8" << "megatron-sp+zero1" << 4 << int(Recompute::Full)
                                                 << 1 << "" << mxfp8 << false;
        QTest::newRow("PTD-P uneven first and last") << "pipe=4,data=2,model=8" << "megatron-sp" << 48
                                                   << int(Recompute::None) << 1 << "23,25,25,23" << bf16 << false;
    }
    void frameworkShapedPlansRoundTrip() {
        // Export, read the flags back as Megatron-LM reads them, rebuild: the same plan, settings and cut.
        QFETCH(QString, mesh);
        QFETCH(QString, spec);
        QFETCH(int, microbatches);
        QFETCH(int, recompute);
        QFETCH(int, virtualStages);
        QFETCH(QString, cut);
        QFETCH(int, precision);
        QFETCH(bool, fusedLoss);
        StepSettings s;
        s.loss = fusedLoss ? LossKernel::Fused : LossKernel::Unfused;
        s.microbatches = microbatches;
        s.recompute = static_cast<Recompute>(recompute);
        s.precision = static_cast<Precision>(precision);
        s.virtualStages = virtualStages;
        s.schedule = virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
        std::vector<int> chunks;
        for (const QString& n : cut.split(QLatin1Char(','), Qt::SkipEmptyParts))
            chunks.push_back(n.toInt());
        const Graph g = gpt96(microbatches);
        const Mesh m = Mesh::parse(mesh.toStdString());
        const Plan p = planOf(g, m, spec.toStdString(), s, chunks);
        const Plan back = readBack(megatronArguments(g, p, 1536), m.deviceCount());
        QCOMPARE(back.mesh.toString(), p.mesh.toString());
        QCOMPARE(back.strategies(), p.strategies());
        QCOMPARE(back.settings.zeroStage, p.settings.zeroStage);
        QCOMPARE(back.settings.recompute, p.settings.recompute);
        QCOMPARE(back.settings.precision, p.settings.precision);
        QCOMPARE(back.settings.loss, p.settings.loss);
        QCOMPARE(back.settings.microbatches, p.settings.microbatches);
        QCOMPARE(back.settings.schedule, p.settings.schedule);
        QCOMPARE(back.settings.virtualStages, p.settings.virtualStages);
        QCOMPARE(back.pipeline.chunkBlocks, p.pipeline.chunkBlocks);
    }

    void whatMegatronCannotExpressIsRefused() {
        StepSettings s;
        s.microbatches = 8;
        const Graph g = gpt96(8);
        // One op off Megatron's layout: named, with its strategy and Megatron's.
        Plan p = planOf(g, Mesh::parse("data=8,model=8"), "megatron", s);
        const OpId q = *g.findOp("layers.7.attn.proj");
        for (const OpStrategy& other : enumerateStrategies(g.op(q), p.mesh))
            if (!(other == p.ops[q.index()].strategy)) {
                p.ops[q.index()].strategy = other;
                break;
            }
        refused(g, p, "1 ops differ from Megatron-LM's megatron layout on data=8,model=8: layers.7.attn.proj is");
        refused(g, planOf(g, Mesh::parse("data=8,model=8"), "megatron+zero3", s), "ZeRO-3 has no Megatron-LM flag");
        refused(g, planOf(g, Mesh::parse("data=4,rows=2,model=8"), "megatron", s), "mesh axis 'rows'");
        StepSettings gpipe = s;
        gpipe.schedule = Schedule::GPipe;
        refused(g, planOf(g, Mesh::parse("pipe=4,data=2,model=8"), "megatron", gpipe), "runs GPipe");
        refused(g, planOf(g, Mesh::parse("pipe=4,data=2,model=8"), "megatron", s, {20, 28, 24, 24}),
                "varies between middle stages");
        // 512 micro-batches of 3 sequences cannot feed 8 data-parallel replicas each step.
        StepSettings many = s;
        many.microbatches = 512;
        refused(gpt96(512), planOf(gpt96(512), Mesh::parse("data=8,model=8"), "megatron", many),
                "does not deal into 8 data-parallel replicas x 512 micro-batches");
    }

    void expertParallelismBecomesMegatronsExpertFlags() {
        // Mixtral's shape (8 experts, top-2) on data=8,model=2: Megatron-LM's expert parallelism puts
        // 8 / EP experts on each data rank (the expert weights split on their expert dimension over
        // data) and splits each expert's FFN over the tensor-parallel ranks.
        ModelParams mp;
        mp.layers = 4;
        mp.hidden = 256;
        mp.heads = 8;
        mp.kvHeads = 2;
        mp.ffn = 512;
        mp.seq = 256;
        mp.vocab = 512;
        mp.batch = 64;
        const Graph g = buildModel("moe", mp, 1, "moe");
        const Mesh mesh = Mesh::parse("data=8,model=2");
        StepSettings s;
        Plan p = planOf(g, mesh, "megatron-sp", s);
        for (std::size_t o = 0; o < g.ops().size(); ++o)
            if (!g.ops()[o].hints.expert.empty())
                p.ops[o].strategy.factorOfAxis[0] = g.ops()[o].rule.findFactor(g.ops()[o].hints.expert);
        std::map<std::string, std::string> flags;
        for (const auto& [flag, value] : megatronArguments(g, p, 64))
            flags[flag] = value;
        QCOMPARE(flags["--expert-model-parallel-size"], std::string("8"));
        QCOMPARE(flags["--expert-tensor-parallel-size"], std::string("2"));
        // By the flags' meaning: each expert weight is split 8 ways on its expert dimension, over data.
        const Op& experts = g.op(*g.findOp("layers.0.moe.experts.gate_up"));
        const TensorSharding w = inputSharding(experts, 1, p.ops[g.findOp("layers.0.moe.experts.gate_up")->index()].strategy);
        QCOMPARE(w.dims[0], axisBit(AxisId(0)));
        // Without expert parallelism the same model exports no expert flags.
        std::map<std::string, std::string> plain;
        for (const auto& [flag, value] : megatronArguments(g, planOf(g, mesh, "megatron-sp", s), 64))
            plain[flag] = value;
        QCOMPARE(plain.count("--expert-model-parallel-size"), std::size_t(0));
        // An expert axis of its own inside data parallelism: EP 2 of Megatron's data-parallel 8 = data 4 x
        // expert 2, so 64 sequences are micro-batches of 64 / 8 = 8.
        std::map<std::string, std::string> ep;
        for (const auto& [flag, value] : megatronArguments(g, planOf(g, Mesh::parse("data=4,expert=2,model=2"), "megatron-sp", s), 64))
            ep[flag] = value;
        QCOMPARE(ep["--expert-model-parallel-size"], std::string("2"));
        QCOMPARE(ep["--expert-tensor-parallel-size"], std::string("2"));
        QCOMPARE(ep["--micro-batch-size"], std::string("8"));
        refused(g, planOf(g, Mesh::parse("expert=2,data=4,model=2"), "megatron-sp", s), "must follow the data axis");
        // MoE parallel folding: with etp1 the routed experts split over expert x model (2 x 2 = EP 4) and
        // are not tensor-parallel, while attention and the norms keep TP 2 and sequence parallelism.
        const Plan folded = planOf(g, Mesh::parse("data=4,expert=2,model=2"), "megatron-sp+etp1", s);
        const OpId gateUp = *g.findOp("layers.0.moe.experts.gate_up");
        const TensorSharding fw = inputSharding(g.op(gateUp), 1, folded.ops[gateUp.index()].strategy);
        QCOMPARE(fw.dims[0], axisBit(AxisId(1)) | axisBit(AxisId(2))); // experts over expert and model
        QCOMPARE(fw.dims[3], AxisSet(0));                              // f whole
        const OpId qkv = *g.findOp("layers.0.attn.qkv");
        QCOMPARE(folded.ops[qkv.index()].strategy, planOf(g, Mesh::parse("data=4,expert=2,model=2"), "megatron-sp", s).ops[qkv.index()].strategy);
        std::map<std::string, std::string> fold;
        for (const auto& [flag, value] : megatronArguments(g, folded, 64))
            fold[flag] = value;
        QCOMPARE(fold["--expert-model-parallel-size"], std::string("4"));
        QCOMPARE(fold["--expert-tensor-parallel-size"], std::string("1"));
        QCOMPARE(fold.count("--sequence-parallel"), std::size_t(1));
    }

    void pipelinesCutBetweenTheLayersOfAPair() {
        // GPT OSS alternates sliding-window and full layers, so its repeated block is a pair; a cut still
        // falls between any two layers, and Megatron counts layers: 8 layers as 3, 2, 2, 1 on 4 stages
        // export as first 3, last 1 (the middle stages' 2 each implied).
        const Graph g = loadModel(ModelRequest{SHARDSCOPE_SOURCE_DIR "/samples/models/hf-gpt-oss-120b/config.json",
                                               {"layers=8", "seq=512", "vocab=1024", "batch=8"}, std::nullopt},
                                  1);
        StepSettings s;
        s.microbatches = 4;
        const Plan p = planOf(g, Mesh::parse("pipe=4,data=2"), "dp", s, {3, 2, 2, 1});
        std::map<std::string, std::string> flags;
        for (const auto& [flag, value] : megatronArguments(g, p, 8))
            flags[flag] = value;
        QCOMPARE(flags["--pipeline-model-parallel-size"], std::string("4"));
        QCOMPARE(flags["--decoder-first-pipeline-num-layers"], std::string("3"));
        QCOMPARE(flags["--decoder-last-pipeline-num-layers"], std::string("1"));
    }

    void deepspeedConfigsRoundTrip_data() {
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("microbatches");
        for (int zero = 0; zero <= 3; ++zero)
            for (int m : {1, 4})
                QTest::newRow(qPrintable(QStringLiteral("zero%1 m%2").arg(zero).arg(m))) << zero << m;
    }
    void deepspeedConfigsRoundTrip() {
        // Export dp / zeroN on data=64, read the JSON back by DeepSpeed's rule (train_batch_size =
        // micro-batch per GPU x accumulation steps x GPUs), rebuild: the same plan and settings.
        QFETCH(int, zero);
        QFETCH(int, microbatches);
        StepSettings s;
        s.microbatches = microbatches;
        const Graph g = gpt96(microbatches);
        const Plan p = planOf(g, Mesh::parse("data=64"), baselineSpec("dp", zero), s);
        const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(deepspeedConfig(g, p, 1536))).object();
        QCOMPARE(j.value(QStringLiteral("train_batch_size")).toInt(), 1536);
        const int accumulation = j.value(QStringLiteral("gradient_accumulation_steps")).toInt();
        const int gpus = 1536 / accumulation / j.value(QStringLiteral("train_micro_batch_size_per_gpu")).toInt();
        const int stage = j.value(QStringLiteral("zero_optimization")).toObject().value(QStringLiteral("stage")).toInt();
        QVERIFY(j.value(QStringLiteral("bf16")).toObject().value(QStringLiteral("enabled")).toBool());
        StepSettings back;
        back.microbatches = accumulation;
        const Plan rebuilt = planOf(gpt96(accumulation), Mesh::parse("data=" + std::to_string(gpus)), baselineSpec("dp", stage), back);
        QCOMPARE(rebuilt.mesh.toString(), p.mesh.toString());
        QCOMPARE(rebuilt.strategies(), p.strategies());
        QCOMPARE(rebuilt.settings.zeroStage, p.settings.zeroStage);
        QCOMPARE(rebuilt.settings.zeroAxes, p.settings.zeroAxes);
        QCOMPARE(rebuilt.settings.microbatches, p.settings.microbatches);
    }
    void whatDeepspeedsConfigCannotExpressIsRefused() {
        StepSettings s;
        s.microbatches = 4;
        const Graph g = gpt96(4);
        refused(g, planOf(g, Mesh::parse("data=8,model=8"), "megatron", s), "has axes besides one data axis", Format::Deepspeed);
        StepSettings full = s;
        full.recompute = Recompute::Full;
        refused(g, planOf(g, Mesh::parse("data=64"), "zero3", full), "deepspeed.checkpointing", Format::Deepspeed);
        Plan p = planOf(g, Mesh::parse("data=64"), "zero1", s);
        const OpId q = *g.findOp("layers.3.mlp.fc1");
        p.ops[q.index()].strategy = OpStrategy::replicated(1);
        refused(g, p, "1 ops differ from DeepSpeed's dp layout on data=64: layers.3.mlp.fc1 is replicated", Format::Deepspeed);
        StepSettings fp8 = s;
        fp8.precision = Precision::FP8;
        refused(g, planOf(g, Mesh::parse("data=64"), "zero2", fp8), "DeepSpeed's config has no FP8 setting", Format::Deepspeed);
    }

    void torchtitanConfigsRoundTrip_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("precision");
        const int bf16 = int(Precision::BF16), fp8 = int(Precision::FP8), mxfp8 = int(Precision::MXFP8);
        QTest::newRow("FSDP, fp8") << "data=64" << "zero3" << 1 << int(Recompute::None) << int(Schedule::OneFOneB) << fp8;
        QTest::newRow("DDP, accumulation, fp8") << "data=64" << "dp" << 4 << int(Recompute::Full) << int(Schedule::OneFOneB)
                                                << fp8;
        QTest::newRow("FSDP + TP, mxfp8") << "data=8,model=8" << "megatron-sp+zero3" << 2 << int(Recompute::Full)
                                          << int(Schedule::OneFOneB) << mxfp8;
        QTest::newRow("ZeRO-2 + TP + PP 1F1B") << "pipe=4,data=2,model=8" << "megatron-sp+zero2" << 48 << int(Recompute::Full)
                                               << int(Schedule::OneFOneB) << bf16;
        QTest::newRow("PP GPipe") << "pipe=4,data=16" << "zero3" << 24 << int(Recompute::None) << int(Schedule::GPipe) << bf16;
        QTest::newRow("FSDP + TP + CP") << "data=4,seq=2,model=8" << "megatron-sp+zero3" << 1 << int(Recompute::Full)
                                        << int(Schedule::OneFOneB) << bf16;
    }
    void torchtitanConfigsRoundTrip() {
        // Export, read the TOML back by torchtitan's meaning (data parallel = replicate x shard, ZeRO by
        // replicate / shard / reshard after forward, micro-batches from the pipeline's micro-batch size
        // or the accumulation), rebuild: the same plan and settings. python3's tomllib parses it too.
        QFETCH(QString, mesh);
        QFETCH(QString, spec);
        QFETCH(int, microbatches);
        QFETCH(int, recompute);
        QFETCH(int, schedule);
        QFETCH(int, precision);
        StepSettings s;
        s.microbatches = microbatches;
        s.recompute = static_cast<Recompute>(recompute);
        s.schedule = static_cast<Schedule>(schedule);
        s.precision = static_cast<Precision>(precision);
        const Graph g = gpt96(microbatches);
        const Mesh m = Mesh::parse(mesh.toStdString());
        const Plan p = planOf(g, m, spec.toStdString(), s);
        const std::string toml = torchtitanConfig(g, p, 1536, 256);
        std::map<std::string, std::string> keys; // "section.key" -> value, quotes removed
        std::string section;
        for (const QString& l : QString::fromStdString(toml).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (l.startsWith(QLatin1Char('['))) {
                section = l.mid(1, l.size() - 2).toStdString();
                continue;
            }
            const QStringList kv = l.split(QStringLiteral(" = "));
            QCOMPARE(kv.size(), 2);
            keys[section + "." + kv[0].toStdString()] = kv[1].toStdString().substr(kv[1].startsWith(QLatin1Char('"')) ? 1 : 0,
                                                                                  kv[1].size() - (kv[1].startsWith(QLatin1Char('"')) ? 2 : 0));
        }
        auto number = [&](const std::string& k) { return std::stoi(keys.at(k)); };
        const int replicate = number("parallelism.data_parallel_replicate_degree");
        const int shard = number("parallelism.data_parallel_shard_degree");
        const int tp = number("parallelism.tensor_parallel_degree"), pp = number("parallelism.pipeline_parallel_degree");
        const int local = number("training.local_batch_size");
        StepSettings back;
        back.microbatches = pp > 1 ? local / number("parallelism.pipeline_parallel_microbatch_size")
                                   : number("training.global_batch_size") / (replicate * shard) / local;
        back.recompute = keys.at("activation_checkpoint.mode") == "full" ? Recompute::Full : Recompute::None;
        back.schedule = pp > 1 && keys.at("parallelism.pipeline_parallel_schedule") == "GPipe" ? Schedule::GPipe
                                                                                              : Schedule::OneFOneB;
        const int zero = replicate > 1 ? 0 : keys.at("parallelism.fsdp_reshard_after_forward") == "never" ? 2 : 3;
        std::string rebuiltMesh = (pp > 1 ? "pipe=" + std::to_string(pp) + "," : "") + "data=" + std::to_string(replicate * shard);
        if (const int cp = number("parallelism.context_parallel_degree"); cp > 1)
            rebuiltMesh += ",seq=" + std::to_string(cp);
        if (tp > 1)
            rebuiltMesh += ",model=" + std::to_string(tp);
        const Plan rebuilt = planOf(gpt96(back.microbatches), Mesh::parse(rebuiltMesh),
                                    baselineSpec(tp > 1 ? "megatron-sp" : "dp", zero), back);
        QCOMPARE(rebuilt.mesh.toString(), p.mesh.toString());
        QCOMPARE(rebuilt.strategies(), p.strategies());
        QCOMPARE(rebuilt.settings.zeroStage, p.settings.zeroStage);
        QCOMPARE(rebuilt.settings.microbatches, p.settings.microbatches);
        QCOMPARE(rebuilt.settings.recompute, p.settings.recompute);
        QCOMPARE(rebuilt.settings.schedule, p.settings.schedule);
        // torchao's converter: float8 (tensorwise; its FSDP all-gather in float8 under ZeRO-3, as priced) or
        // MX, none in BF16; the LM head ("output") filtered out.
        const std::string converters = keys.count("model.converters") ? keys.at("model.converters") : "";
        const Precision backPrecision = converters == "[\"float8\"]" ? Precision::FP8
                                        : converters == "[\"mx\"]"   ? Precision::MXFP8
                                                                       : Precision::BF16;
        QCOMPARE(backPrecision, p.settings.precision);
        if (p.settings.precision == Precision::FP8) {
            QCOMPARE(keys.at("float8.enable_fsdp_float8_all_gather"), std::string(zero == 3 ? "true" : "false"));
            QCOMPARE(keys.at("float8.filter_fqns"), std::string("[\"output\"]"));
        }
        QCOMPARE(number("training.seq_len"), 256);
        // Valid TOML for Python's parser, when the machine has python3 (Debian's has tomllib from 3.11).
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (!python.isEmpty()) {
            QProcess parse;
            parse.start(python, {QStringLiteral("-c"), QStringLiteral("import sys, tomllib; tomllib.loads(sys.stdin.read())")});
            parse.write(QByteArray::fromStdString(toml));
            parse.closeWriteChannel();
            QVERIFY(parse.waitForFinished(30000));
            QVERIFY2(parse.exitCode() == 0, parse.readAllStandardError().constData());
        }
    }
    void whatTorchtitanCannotExpressIsRefused() {
        StepSettings s;
        s.microbatches = 8;
        const Graph g = gpt96(8);
        refused(g, planOf(g, Mesh::parse("data=64"), "zero1", s), "ZeRO-1 has no torchtitan setting", Format::Torchtitan);
        StepSettings selective = s;
        selective.recompute = Recompute::Selective;
        refused(g, planOf(g, Mesh::parse("data=64"), "zero3", selective), "recomputes attention only", Format::Torchtitan);
        refused(g, planOf(g, Mesh::parse("data=8,model=8"), "megatron+zero3", s), "differ from torchtitan's megatron-sp layout",
                Format::Torchtitan);
        refused(g, planOf(g, Mesh::parse("pipe=4,data=16"), "zero3", s, {20, 28, 24, 24}), "the uneven cut", Format::Torchtitan);
        StepSettings inter = s;
        inter.schedule = Schedule::Interleaved;
        inter.virtualStages = 2;
        refused(g, planOf(g, Mesh::parse("pipe=4,data=16"), "zero3", inter), "the interleaved schedule", Format::Torchtitan);
    }

    void jaxModulesCarryEveryLayout() {
        // Megatron's MLP on data=8,model=8 by its definition: fc1 column-parallel (its output features
        // over model), fc2 row-parallel (its input features over model), activations batch over data.
        // ZeRO-1 splits the optimizer state over data on the first dimension that divides, ZeRO-3 the
        // parameters too. The module compiles (python3 -m py_compile) where python3 exists.
        StepSettings s;
        s.microbatches = 1;
        const Graph g = gpt96(1);
        const Mesh mesh = Mesh::parse("data=8,model=8");
        auto specsOf = [](const std::string& module, const QString& table) {
            std::map<QString, QString> specs;
            const QString text = QString::fromStdString(module);
            const qsizetype from = text.indexOf(table + QStringLiteral(" = {")), to = text.indexOf(QStringLiteral("\n}"), from);
            static const QRegularExpression entry(QStringLiteral("\"([^\"]+)\": (P\\(.*\\)),"));
            auto it = entry.globalMatch(text.mid(from, to - from));
            while (it.hasNext()) {
                const auto m = it.next();
                specs[m.captured(1)] = m.captured(2);
            }
            return specs;
        };
        const std::string plain = jaxModule(g, planOf(g, mesh, "megatron", s));
        QCOMPARE(specsOf(plain, QStringLiteral("PARAM_SPECS"))[QStringLiteral("layers.0.mlp.fc1.weight")], QStringLiteral("P(None, \"model\")"));
        QCOMPARE(specsOf(plain, QStringLiteral("PARAM_SPECS"))[QStringLiteral("layers.0.mlp.fc2.weight")], QStringLiteral("P(\"model\", None)"));
        QCOMPARE(specsOf(plain, QStringLiteral("OPTIMIZER_STATE_SPECS"))[QStringLiteral("layers.0.mlp.fc1.weight")],
                 QStringLiteral("P(None, \"model\")"));
        QCOMPARE(specsOf(plain, QStringLiteral("ACTIVATION_SPECS"))[QStringLiteral("layers.0.mlp.fc1.out")],
                 QStringLiteral("P(\"data\", None, \"model\")"));
        QVERIFY(plain.find("MESH_SHAPE = (8, 8)\nMESH_AXES = (\"data\", \"model\")") != std::string::npos);
        const std::string zero1 = jaxModule(g, planOf(g, mesh, "megatron+zero1", s));
        QCOMPARE(specsOf(zero1, QStringLiteral("PARAM_SPECS"))[QStringLiteral("layers.0.mlp.fc1.weight")], QStringLiteral("P(None, \"model\")"));
        QCOMPARE(specsOf(zero1, QStringLiteral("OPTIMIZER_STATE_SPECS"))[QStringLiteral("layers.0.mlp.fc1.weight")],
                 QStringLiteral("P(\"data\", \"model\")"));
        const std::string zero3 = jaxModule(g, planOf(g, mesh, "megatron+zero3", s));
        QCOMPARE(specsOf(zero3, QStringLiteral("PARAM_SPECS"))[QStringLiteral("layers.0.mlp.fc2.weight")],
                 QStringLiteral("P((\"data\", \"model\"), None)"));
        // Every parameter and every op output has its entry.
        int parameters = 0;
        for (const Tensor& t : g.tensors())
            parameters += t.role == TensorRole::Parameter;
        QCOMPARE(int(specsOf(zero3, QStringLiteral("PARAM_SPECS")).size()), parameters);
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (!python.isEmpty()) {
            QTemporaryDir dir;
            const QString path = dir.filePath(QStringLiteral("plan_jax.py"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(zero3));
            f.close();
            QProcess compile;
            compile.start(python, {QStringLiteral("-m"), QStringLiteral("py_compile"), path});
            QVERIFY(compile.waitForFinished(30000));
            QVERIFY2(compile.exitCode() == 0, compile.readAllStandardError().constData());
        }
        try {
            jaxModule(g, planOf(g, Mesh::parse("pipe=4,data=2,model=8"), "megatron", s));
            QFAIL("exported a pipe axis to JAX");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("has a pipe axis") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
