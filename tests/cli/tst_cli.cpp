// The shardscope-cli contract: listings, evaluate's JSON fields, every preset with every baseline,
// and exit status 2 with one line naming the problem on bad input.

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <cmath>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// Runs the CLI with `args`, waiting at most `waitMs` (the sanitizer build runs several times slower).
Run cli(const QStringList& args, int waitMs = 120000) {
    QProcess p;
    p.start(QStringLiteral(SHARDSCOPE_CLI), args);
    p.waitForFinished(waitMs);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

QString fixture(const char* name) { return QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/fixtures/") + QLatin1String(name); }

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void listsPresets() {
        const Run models = cli({QStringLiteral("models")});
        QCOMPARE(models.exitCode, 0);
        for (const char* name : {"gpt2-small", "gpt3-1.3b", "gpt3-175b", "llama2-7b", "llama2-70b", "mixtral-8x7b", "resnet50"})
            QVERIFY2(models.out.contains(name), name);
        const Run clusters = cli({QStringLiteral("clusters"), QStringLiteral("--json")});
        QCOMPARE(clusters.exitCode, 0);
        const QJsonArray list = QJsonDocument::fromJson(clusters.out).array();
        QStringList names;
        for (const QJsonValue& c : list)
            names << c.toObject()[QStringLiteral("name")].toString();
        QCOMPARE(names, (QStringList{QStringLiteral("dgx-a100"), QStringLiteral("dgx-h100"), QStringLiteral("dgx-h200"),
                                     QStringLiteral("dgx-b200"), QStringLiteral("gb200-nvl72"),
                                     QStringLiteral("gb300-nvl72"), QStringLiteral("mi300x"), QStringLiteral("pcie-8x")}));
    }
    void helpAnswersAfterAnyCommand() {
        // "--help" alone or after a command prints the usage on stdout and succeeds.
        for (const QStringList& args : {QStringList{QStringLiteral("--help")},
                                        QStringList{QStringLiteral("bench"), QStringLiteral("--help")},
                                        QStringList{QStringLiteral("search"), QStringLiteral("--model"), QStringLiteral("gpt"),
                                                    QStringLiteral("-h")}}) {
            const Run r = cli(args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains("shardscope-cli bench") && r.err.isEmpty(), qPrintable(args.join(u' ')));
        }
    }
    void evaluateJsonHasTheContractFields() {
        const Run r = cli({QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("gpt"),
                           QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--mesh"),
                           QStringLiteral("data=4,model=2"), QStringLiteral("--strategy"), QStringLiteral("megatron"),
                           QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"params_total", "flops_per_step", "step_time_s", "compute_time_s", "comm_time_s",
                                "exposed_comm_time_s", "peak_memory_bytes", "memory_capacity_bytes", "memory_breakdown",
                                "feasible", "comm_bytes_per_device", "mesh", "per_op"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        for (const char* key : {"parameters", "gradients", "optimizer", "activations", "buffers"})
            QVERIFY2(o[QStringLiteral("memory_breakdown")].toObject().contains(QLatin1String(key)), key);
        QCOMPARE(o[QStringLiteral("mesh")].toObject()[QStringLiteral("model")].toInt(), 2);
        const QJsonObject first = o[QStringLiteral("per_op")].toArray()[0].toObject();
        for (const char* key : {"name", "kind", "strategy", "compute_s", "comm_s", "collectives", "memory_bytes"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        // The per-op figures add up to the totals.
        double compute = 0, comm = 0;
        for (const auto& v : o[QStringLiteral("per_op")].toArray()) {
            compute += v.toObject()[QStringLiteral("compute_s")].toDouble();
            comm += v.toObject()[QStringLiteral("comm_s")].toDouble();
        }
        QVERIFY(qAbs(compute - o[QStringLiteral("compute_time_s")].toDouble()) < 1e-9);
        QVERIFY(qAbs(comm - o[QStringLiteral("comm_time_s")].toDouble()) < 1e-9);
    }
    void everyPresetWithEveryBaseline_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"gpt2-small", "gpt3-1.3b", "gpt3-175b", "llama2-7b", "llama2-70b", "mixtral-8x7b",
                              "resnet50", "mlp", "gpt", "llama", "moe", "resnet"})
            QTest::newRow(m) << QString::fromLatin1(m);
    }
    void everyPresetWithEveryBaseline() {
        QFETCH(QString, model);
        for (const char* s : {"dp", "megatron", "megatron-sp", "zero1", "zero2", "zero3", "fsdp", "megatron-sp+zero3"}) {
            const Run r = cli({QStringLiteral("evaluate"), QStringLiteral("--model"), model, QStringLiteral("--cluster"),
                               QStringLiteral("dgx-a100"), QStringLiteral("--nodes"), QStringLiteral("2"),
                               QStringLiteral("--mesh"), QStringLiteral("data=2,model=8"), QStringLiteral("--strategy"),
                               QLatin1String(s), QStringLiteral("--json")});
            QVERIFY2(r.exitCode == 0, qPrintable(model + QLatin1Char(' ') + QLatin1String(s) + QLatin1Char(' ') +
                                                 QString::fromUtf8(r.err)));
            const QJsonObject o = QJsonDocument::fromJson(r.out).object();
            QVERIFY(o[QStringLiteral("step_time_s")].toDouble() > 0);
            QVERIFY(o.contains(QStringLiteral("feasible")));
        }
    }
    void badInputExitsTwoWithOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString ev = QStringLiteral("evaluate");
        const QString m = QStringLiteral("--model"), c = QStringLiteral("--cluster"), a100 = QStringLiteral("dgx-a100");
        QTest::newRow("unknown preset") << QStringList{ev, m, QStringLiteral("gpt5"), c, a100} << QStringLiteral("unknown model preset 'gpt5'");
        QTest::newRow("unknown cluster") << QStringList{ev, m, QStringLiteral("gpt"), c, QStringLiteral("tpu")} << QStringLiteral("unknown cluster preset 'tpu'");
        QTest::newRow("unknown option") << QStringList{ev, QStringLiteral("--fast")} << QStringLiteral("unknown option '--fast'");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("train")} << QStringLiteral("unknown command 'train'");
        QTest::newRow("mesh product") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--mesh"), QStringLiteral("data=3")}
                                      << QStringLiteral("has 3 devices but cluster dgx-a100 has 8");
        QTest::newRow("malformed file") << QStringList{ev, m, fixture("malformed.model.json"), c, a100} << QStringLiteral("malformed JSON at line 2");
        QTest::newRow("unknown op kind") << QStringList{ev, m, fixture("unknown-kind.model.json"), c, a100}
                                         << QStringLiteral("unknown op kind 'frobnicate'");
        QTest::newRow("missing file") << QStringList{ev, m, QStringLiteral("/nonexistent/x.model.json"), c, a100} << QStringLiteral("cannot read");
        QTest::newRow("bad set") << QStringList{ev, m, QStringLiteral("gpt"), QStringLiteral("--set"), QStringLiteral("heads=7"), c, a100}
                                 << QStringLiteral("does not divide hidden");
        QTest::newRow("bad strategy") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--strategy"), QStringLiteral("pp")}
                                      << QStringLiteral("unknown baseline 'pp'");
        QTest::newRow("bad bucket") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--bucket-mb"), QStringLiteral("25x")}
                                    << QStringLiteral("--bucket-mb 25x: expected megabytes");
        QTest::newRow("schedule auto outside search")
            << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--schedule"), QStringLiteral("auto")}
            << QStringLiteral("--schedule auto: only search chooses a setting");
        QTest::newRow("more stages than blocks")
            << QStringList{QStringLiteral("search"), m, QStringLiteral("gpt"), QStringLiteral("--set"), QStringLiteral("layers=4"), c,
                           a100, QStringLiteral("--nodes"), QStringLiteral("8"), QStringLiteral("--mesh"), QStringLiteral("pipe=8,data=8")}
            << QStringLiteral("4 repeated blocks cannot fill 8 model chunks");
        QTest::newRow("bad recompute") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--recompute"), QStringLiteral("some")}
                                       << QStringLiteral("expected none, selective or full");
        // Four repeated blocks, each 8 ops read by 8 ops (a complete bipartite join, treewidth 8):
        // TAPAS's block table was built regardless (25 s, 4 GB, then out of memory); both exact
        // solvers now refuse before building any table.
        const QStringList dense{QStringLiteral("search"), m, fixture("dense-blocks.model.json"), c, a100, QStringLiteral("--mesh"),
                                QStringLiteral("data=4,model=2"), QStringLiteral("--zero"), QStringLiteral("0"), QStringLiteral("--recompute"),
                                QStringLiteral("none"), QStringLiteral("--microbatches"), QStringLiteral("1"), QStringLiteral("--algo")};
        QTest::newRow("tapas dependent set") << (QStringList(dense) << QStringLiteral("tapas"))
                                             << QStringLiteral("--algo tapas: a dependent set needs a table of 467 M entries, over the limit of 200 M");
        QTest::newRow("pase dependent set") << (QStringList(dense) << QStringLiteral("pase"))
                                            << QStringLiteral("--algo pase: a dependent set needs a table of 33.2 T entries");
        // Sizes whose products wrapped to 0 in int and crashed with SIGFPE.
        const QString limit = QStringLiteral("limit of 1,048,576 devices");
        QTest::newRow("nodes beyond the device limit")
            << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--nodes"), QStringLiteral("536870912")} << limit;
        QTest::newRow("cluster levels beyond the device limit") << QStringList{ev, m, QStringLiteral("gpt"), c, fixture("huge-levels.cluster.json")}
                                                                << limit;
        QTest::newRow("mesh beyond the device limit")
            << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--mesh"), QStringLiteral("data=65536,model=65536")} << limit;
        QTest::newRow("mesh size past int") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--mesh"), QStringLiteral("data=4294967304")}
                                            << limit;
        // Values JSON allows but the readers did not check, once exit 1 ("internal error").
        QTest::newRow("number past double") << QStringList{ev, m, fixture("number-overflow.model.json"), c, a100}
                                            << QStringLiteral("number-overflow.model.json: number overflow parsing '1e999'");
        QTest::newRow("tactic step collectives not an object")
            << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--strategy"), fixture("bad-collectives.plan.json")}
            << QStringLiteral("field 'tactics[0].step.collectives_added': must be an object");
        QTest::newRow("tactic step feasible not a boolean")
            << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--strategy"), fixture("bad-feasible.plan.json")}
            << QStringLiteral("field 'tactics[0].step.feasible': must be true or false");
        QTest::newRow("plan written to a device") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--plan-out"), QStringLiteral("/dev/full")}
                                                  << QStringLiteral("/dev/full: not a regular file");
        QTest::newRow("empty plan file name") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--plan-out"), QString()}
                                              << QStringLiteral("--plan-out: empty value");
        QTest::newRow("empty device list") << QStringList{QStringLiteral("simulate"), m, QStringLiteral("gpt"), c, a100, QStringLiteral("--devices"), QString()}
                                           << QStringLiteral("--devices: empty value");
        QTest::newRow("dangling plus") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--strategy"), QStringLiteral("dp+")}
                                       << QStringLiteral("a '+' joins two names");
        QTest::newRow("input echoed with its newlines") << QStringList{ev, m, QStringLiteral("gpt\nsecond line"), c, a100}
                                                       << QStringLiteral("unknown model preset 'gpt\\nsecond line'");
        QTest::newRow("input echoed at length") << QStringList{ev, m, QStringLiteral("g").repeated(100000), c, a100}
                                                << QStringLiteral("...");
        // Work without bound, once: a device read as a model, a billion layers.
        QTest::newRow("a device as the model") << QStringList{ev, m, QStringLiteral("/dev/zero"), c, a100}
                                               << QStringLiteral("/dev/zero: not a regular file");
        QTest::newRow("layers beyond the limit")
            << QStringList{ev, m, QStringLiteral("gpt"), QStringLiteral("--set"), QStringLiteral("layers=999999999"), c, a100}
            << QStringLiteral("more than the limit of 10,000 layers");
        QTest::newRow("a config of 10^8 layers") << QStringList{ev, m, fixture("deep-hf/config.json"), c, a100}
                                                 << QStringLiteral("field 'num_hidden_layers': more than the limit of 10,000 layers");
        QTest::newRow("rule size past int64") << QStringList{ev, m, fixture("huge-factor.model.json"), c, a100}
                                              << QStringLiteral("the size of factor 'i' is too large");
        QTest::newRow("a trace of every device past the event budget")
            << QStringList{QStringLiteral("simulate"), m, QStringLiteral("gpt3-175b"), c, a100, QStringLiteral("--nodes"), QStringLiteral("128"),
                           QStringLiteral("--mesh"), QStringLiteral("data=128,model=8"), QStringLiteral("--strategy"),
                           QStringLiteral("megatron-sp+zero3"), QStringLiteral("--microbatches"), QStringLiteral("16"),
                           QStringLiteral("--devices"), QStringLiteral("all"), QStringLiteral("--trace"),
                           QDir::temp().filePath(QStringLiteral("shardscope-tst-all.trace.json"))}
            << QStringLiteral("over the limit of 5,000,000 for a trace or event list");
        const QString plan = fixture("huge-mesh.plan.json");
        for (const QString& command : {QStringLiteral("evaluate"), QStringLiteral("simulate")})
            QTest::newRow(qPrintable(command + QStringLiteral(" of a plan beyond the device limit")))
                << QStringList{command, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--strategy"), plan} << limit;
        QTest::newRow("explain of a plan beyond the device limit")
            << QStringList{QStringLiteral("explain"), m, QStringLiteral("gpt"), c, a100, QStringLiteral("--plan"), plan,
                           QStringLiteral("--op"), QStringLiteral("embed")}
            << limit;
        QTest::newRow("search locked to a plan beyond the device limit")
            << QStringList{QStringLiteral("search"), m, QStringLiteral("gpt"), c, a100, QStringLiteral("--lock"), plan} << limit;
    }
    void badInputExitsTwoWithOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY(r.out.isEmpty());
    }
    void searchJsonHasReportAndPlan() {
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-search.plan.json"));
        const Run r = cli({QStringLiteral("search"), QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--set"),
                           QStringLiteral("layers=4"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100"),
                           QStringLiteral("--mesh"), QStringLiteral("auto"), QStringLiteral("--plan-out"), path,
                           QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"step_time_s", "peak_memory_bytes", "per_op", "algorithm", "search_time_s",
                                "states_explored", "meshes_tried", "folded_blocks", "plan"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        QCOMPARE(o[QStringLiteral("algorithm")].toString(), QStringLiteral("tapas"));
        // data=8; data x model for model 2, 4, 8; data=2,seq=2,model=2.
        QCOMPARE(o[QStringLiteral("meshes_tried")].toArray().size(), 5);
        QVERIFY(o[QStringLiteral("folded_blocks")].toObject()[QStringLiteral("blocks")].toInt() >= 3);
        // The saved plan re-evaluates to the same numbers.
        const Run again = cli({QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--set"),
                               QStringLiteral("layers=4"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100"),
                               QStringLiteral("--strategy"), path, QStringLiteral("--json")});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(again.out).object()[QStringLiteral("step_time_s")].toDouble(),
                 o[QStringLiteral("step_time_s")].toDouble());
        QFile::remove(path);
    }
    void searchChoosesThePipelineSchedule() {
        // A pipe mesh with every setting open: the search reports the schedule it chose, tries 1F1B
        // and interleaved with every V that deals 8 blocks evenly over 2 stages (4 and 2), and its
        // saved plan (cut and schedule) re-evaluates to the same step.
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-pipe.plan.json"));
        const QStringList model{QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--set"), QStringLiteral("layers=8"),
                                QStringLiteral("--set"), QStringLiteral("batch=64"), QStringLiteral("--cluster"),
                                QStringLiteral("dgx-a100"), QStringLiteral("--nodes"), QStringLiteral("2")};
        const Run r = cli(QStringList{QStringLiteral("search")} + model +
                          QStringList{QStringLiteral("--mesh"), QStringLiteral("pipe=2,data=4,model=2"), QStringLiteral("--plan-out"),
                                      path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonObject chosen = o[QStringLiteral("settings_chosen")].toObject();
        QVERIFY(chosen.contains(QStringLiteral("schedule")));
        QStringList schedules;
        for (const QJsonValue& m : o[QStringLiteral("meshes_tried")].toArray())
            schedules << m.toObject()[QStringLiteral("schedule")].toString();
        QCOMPARE(schedules, (QStringList{QStringLiteral("1f1b"), QStringLiteral("interleaved x 4"), QStringLiteral("interleaved x 2")}));
        QCOMPARE(o[QStringLiteral("pipeline")].toObject()[QStringLiteral("stages")].toArray().size(), 2);
        const Run again = cli(QStringList{QStringLiteral("evaluate")} + model +
                              QStringList{QStringLiteral("--strategy"), path, QStringLiteral("--json")});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(again.out).object()[QStringLiteral("step_time_s")].toDouble(),
                 o[QStringLiteral("step_time_s")].toDouble());
        QFile::remove(path);
    }
    void searchKeepsAFixedStageCut() {
        // --stages fixes the cut: the saved plan carries it, locked, and a search locked to that plan
        // keeps it. A cut without a pipe mesh to cut is refused.
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-cut.plan.json"));
        const QStringList model{QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--set"), QStringLiteral("layers=8"),
                                QStringLiteral("--set"), QStringLiteral("batch=64"), QStringLiteral("--cluster"),
                                QStringLiteral("dgx-a100"), QStringLiteral("--nodes"), QStringLiteral("2")};
        const QStringList mesh{QStringLiteral("--mesh"), QStringLiteral("pipe=2,data=4,model=2")};
        auto cutOf = [&]() {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly))
                return QJsonObject();
            return QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("pipeline")].toObject();
        };
        QCOMPARE(cli(QStringList{QStringLiteral("search")} + model + mesh +
                     QStringList{QStringLiteral("--stages"), QStringLiteral("0-2,3-7"), QStringLiteral("--plan-out"), path})
                     .exitCode,
                 0);
        QCOMPARE(cutOf()[QStringLiteral("chunk_blocks")].toArray(), (QJsonArray{3, 5}));
        QCOMPARE(cutOf()[QStringLiteral("locked")].toBool(), true);
        QCOMPARE(cli(QStringList{QStringLiteral("search")} + model +
                     QStringList{QStringLiteral("--lock"), path, QStringLiteral("--plan-out"), path})
                     .exitCode,
                 0);
        QCOMPARE(cutOf()[QStringLiteral("chunk_blocks")].toArray(), (QJsonArray{3, 5}));
        const Run bad = cli(QStringList{QStringLiteral("search")} + model + QStringList{QStringLiteral("--stages"), QStringLiteral("0-2,3-7")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--stages"), bad.err.constData());
        QFile::remove(path);
    }
    void importsOnnxAndWritesAModelFile() {
        // A two-layer encoder exported by torch.onnx: the summary names what was folded and found, the
        // written *.model.json evaluates like the ONNX file itself; an unbound dimension exits 2.
        const QString onnx = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/onnx/fixtures/encoder2.onnx");
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-import.model.json"));
        QFile::remove(path);
        const Run r = cli({QStringLiteral("import"), onnx, QStringLiteral("--set"), QStringLiteral("batch=8"),
                           QStringLiteral("--set"), QStringLiteral("seq=128"), QStringLiteral("--out"), path});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("227 nodes -> 55 ops") && r.out.contains("repeated   2 blocks of 26 ops") &&
                     r.out.contains("opaque     none"),
                 r.out.constData());
        const QStringList rest{QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--strategy"),
                               QStringLiteral("dp"), QStringLiteral("--json")};
        const Run fromJson = cli(QStringList{QStringLiteral("evaluate"), QStringLiteral("--model"), path} + rest);
        const Run fromOnnx = cli(QStringList{QStringLiteral("evaluate"), QStringLiteral("--model"), onnx, QStringLiteral("--set"),
                                             QStringLiteral("batch=8"), QStringLiteral("--set"), QStringLiteral("seq=128")} + rest);
        QCOMPARE(fromJson.exitCode, 0);
        QCOMPARE(fromOnnx.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(fromJson.out).object(), b = QJsonDocument::fromJson(fromOnnx.out).object();
        QCOMPARE(a[QStringLiteral("params_total")].toDouble(), b[QStringLiteral("params_total")].toDouble());
        QCOMPARE(a[QStringLiteral("step_time_s")].toDouble(), b[QStringLiteral("step_time_s")].toDouble());
        const Run unbound = cli({QStringLiteral("import"), onnx});
        QCOMPARE(unbound.exitCode, 2);
        QVERIFY2(unbound.err.contains("dimension 0 is 'batch'"), unbound.err.constData());
    }

    void exportsFrameworkConfigurations() {
        // gpt3-175b's PTD-P plan as Megatron-LM arguments in a file; another framework's format and a
        // plan Megatron cannot express exit 2 with the reason.
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-export.sh"));
        QFile::remove(path);
        const QStringList model{QStringLiteral("--model"), QStringLiteral("gpt3-175b"), QStringLiteral("--cluster"),
                                QStringLiteral("dgx-a100"), QStringLiteral("--nodes"), QStringLiteral("128")};
        const Run r = cli(QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("megatron")} + model +
                          QStringList{QStringLiteral("--mesh"), QStringLiteral("pipe=8,data=16,model=8"), QStringLiteral("--strategy"),
                                      QStringLiteral("megatron-sp+zero1"), QStringLiteral("--microbatches"), QStringLiteral("96"),
                                      QStringLiteral("--out"), path});
        QCOMPARE(r.exitCode, 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        for (const char* flag : {"--tensor-model-parallel-size 8 \\\n", "--pipeline-model-parallel-size 8 \\\n",
                                 "--sequence-parallel", "--use-distributed-optimizer", "--micro-batch-size 1 \\\n",
                                 "--global-batch-size 1536"})
            QVERIFY2(text.contains(flag), flag);
        const Run other = cli(QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("onnx")} +
                              model + QStringList{QStringLiteral("--mesh"), QStringLiteral("data=128,model=8")});
        QCOMPARE(other.exitCode, 2);
        QVERIFY2(other.err.contains("megatron") && other.err.contains("dtensor"), other.err.constData());
        const Run dtensor = cli(QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("dtensor")} +
                                model + QStringList{QStringLiteral("--mesh"), QStringLiteral("data=128,model=8"),
                                                    QStringLiteral("--strategy"), QStringLiteral("megatron-sp+zero3")});
        QCOMPARE(dtensor.exitCode, 0);
        QVERIFY2(dtensor.out.contains("\"layers.*.mlp.fc1\": ColwiseParallel(input_layouts=Shard(1)") &&
                     dtensor.out.contains("DATA_PARALLEL = \"fully_shard\""),
                 dtensor.out.constData());
        const Run titan = cli(QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("torchtitan")} +
                              model + QStringList{QStringLiteral("--mesh"), QStringLiteral("data=128,model=8"),
                                                  QStringLiteral("--strategy"), QStringLiteral("megatron-sp+zero3")});
        QCOMPARE(titan.exitCode, 0);
        QVERIFY2(titan.out.contains("data_parallel_shard_degree = 128\n") && titan.out.contains("tensor_parallel_degree = 8\n"),
                 titan.out.constData());
        // ZeRO-3 over 512 GPUs (64 nodes) in 3 micro-batches: 1536 / (512 x 3) = 1 sequence per GPU.
        const Run ds = cli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("deepspeed"),
                            QStringLiteral("--model"), QStringLiteral("gpt3-175b"), QStringLiteral("--cluster"),
                            QStringLiteral("dgx-a100"), QStringLiteral("--nodes"), QStringLiteral("64"), QStringLiteral("--mesh"),
                            QStringLiteral("data=512"), QStringLiteral("--strategy"), QStringLiteral("zero3"),
                            QStringLiteral("--microbatches"), QStringLiteral("3")});
        QCOMPARE(ds.exitCode, 0);
        const QJsonObject config = QJsonDocument::fromJson(ds.out).object();
        QCOMPARE(config[QStringLiteral("zero_optimization")].toObject()[QStringLiteral("stage")].toInt(), 3);
        QCOMPARE(config[QStringLiteral("train_micro_batch_size_per_gpu")].toInt(), 1);
        QCOMPARE(config[QStringLiteral("gradient_accumulation_steps")].toInt(), 3);
        const Run zero3 = cli(QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("megatron")} +
                              model + QStringList{QStringLiteral("--mesh"), QStringLiteral("data=128,model=8"),
                                                  QStringLiteral("--strategy"), QStringLiteral("megatron+zero3")});
        QCOMPARE(zero3.exitCode, 2);
        QVERIFY2(zero3.err.contains("ZeRO-3"), zero3.err.constData());
        QFile::remove(path);
    }
    void searchKeepsLocksFromAPlan() {
        // Lock fc1 of a 2-layer MLP replicated: the search keeps it although splitting is better.
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-lock.plan.json"));
        const QStringList base{QStringLiteral("--model"), QStringLiteral("mlp"), QStringLiteral("--cluster"),
                               QStringLiteral("dgx-a100"), QStringLiteral("--mesh"), QStringLiteral("model=8")};
        QCOMPARE(cli(QStringList{QStringLiteral("evaluate")} + base + QStringList{QStringLiteral("--plan-out"), path}).exitCode, 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject plan = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QJsonArray strategies = plan[QStringLiteral("strategies")].toArray();
        for (int i = 0; i < strategies.size(); ++i) {
            QJsonObject s = strategies[i].toObject();
            if (s[QStringLiteral("op")].toString() == QStringLiteral("layers.1.fc")) {
                s[QStringLiteral("locked")] = true;
                strategies[i] = s;
            }
        }
        plan[QStringLiteral("strategies")] = strategies;
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(plan).toJson());
        f.close();
        const Run r = cli(QStringList{QStringLiteral("search")} + base +
                          QStringList{QStringLiteral("--lock"), path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray out = QJsonDocument::fromJson(r.out).object()[QStringLiteral("plan")].toObject()[QStringLiteral("strategies")].toArray();
        bool seen = false;
        for (const auto& v : out) {
            const QJsonObject s = v.toObject();
            if (s[QStringLiteral("op")].toString() != QStringLiteral("layers.1.fc"))
                continue;
            seen = true;
            QVERIFY(s[QStringLiteral("axes")].toObject().isEmpty()); // still replicated
            QVERIFY(s[QStringLiteral("locked")].toBool());
        }
        QVERIFY(seen);
        QFile::remove(path);
    }
    void searchRejectsUnknownAlgorithm() {
        const Run r = cli({QStringLiteral("search"), QStringLiteral("--model"), QStringLiteral("mlp"), QStringLiteral("--cluster"),
                           QStringLiteral("dgx-a100"), QStringLiteral("--algo"), QStringLiteral("genetic")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown algorithm"));
    }
    void simulateJsonAndTrace() {
        const QString trace = QDir::temp().filePath(QStringLiteral("shardscope-tst.trace.json"));
        const QStringList base{QStringLiteral("simulate"), QStringLiteral("--model"), QStringLiteral("gpt"),
                               QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--mesh"),
                               QStringLiteral("data=4,model=2"), QStringLiteral("--strategy"), QStringLiteral("megatron"),
                               QStringLiteral("--json")};
        const Run off = cli(base + QStringList{QStringLiteral("--overlap"), QStringLiteral("off")});
        const Run on = cli(base + QStringList{QStringLiteral("--trace"), trace});
        QCOMPARE(off.exitCode, 0);
        QCOMPARE(on.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(off.out).object(), b = QJsonDocument::fromJson(on.out).object();
        for (const char* key : {"step_time_s", "busy_time_s", "exposed_comm_time_s", "peak_memory_bytes",
                                "peak_memory_time_s", "link_traffic"})
            QVERIFY2(b.contains(QLatin1String(key)), key);
        QVERIFY(b[QStringLiteral("step_time_s")].toDouble() <= a[QStringLiteral("step_time_s")].toDouble());
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(f.readAll()).object().contains(QStringLiteral("traceEvents")));
        f.close();
        QFile::remove(trace);
        const Run bad = cli(base + QStringList{QStringLiteral("--overlap"), QStringLiteral("maybe")});
        QCOMPARE(bad.exitCode, 2);
        // --devices picks what the event list expands: devices 6 and 7 only.
        const QString events = QDir::temp().filePath(QStringLiteral("shardscope-tst.events.json"));
        const Run picked = cli(base + QStringList{QStringLiteral("--events"), events, QStringLiteral("--devices"),
                                                  QStringLiteral("6-7")});
        QCOMPARE(picked.exitCode, 0);
        QFile ev(events);
        QVERIFY(ev.open(QIODevice::ReadOnly));
        QSet<int> devices;
        for (const auto& e : QJsonDocument::fromJson(ev.readAll()).object()[QStringLiteral("events")].toArray())
            devices.insert(e.toObject()[QStringLiteral("device")].toInt());
        QCOMPARE(devices, (QSet<int>{6, 7}));
        ev.close();
        QFile::remove(events);
        const Run missing = cli(base + QStringList{QStringLiteral("--devices"), QStringLiteral("0-8")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("device 8 does not exist"), missing.err.constData());
    }
    void searchWithTacticsAndExplain() {
        const QString plan = QDir::temp().filePath(QStringLiteral("shardscope-tst-tactics.plan.json"));
        const QString tactics = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/samples/tactics/bp-megatron-zero3.tactics.json");
        const QStringList base{QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--cluster"),
                               QStringLiteral("dgx-a100")};
        const Run r = cli(QStringList{QStringLiteral("search")} + base +
                          QStringList{QStringLiteral("--mesh"), QStringLiteral("data=4,model=2"), QStringLiteral("--tactics"),
                                      tactics, QStringLiteral("--plan-out"), plan, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray steps = QJsonDocument::fromJson(r.out).object()[QStringLiteral("tactic_steps")].toArray();
        QCOMPARE(steps.size(), 4);
        for (const auto& v : steps)
            for (const char* key : {"tactic", "step_time_s", "peak_memory_bytes", "collectives_added", "conflicts"})
                QVERIFY2(v.toObject().contains(QLatin1String(key)), key);
        QCOMPARE(steps[1].toObject()[QStringLiteral("tactic")].toString(), QStringLiteral("megatron(model)"));
        // ZeRO-3 lowers the peak.
        QVERIFY(steps[3].toObject()[QStringLiteral("peak_memory_bytes")].toDouble() <
                steps[2].toObject()[QStringLiteral("peak_memory_bytes")].toDouble());
        const Run why = cli(QStringList{QStringLiteral("explain")} + base +
                            QStringList{QStringLiteral("--plan"), plan, QStringLiteral("--op"),
                                        QStringLiteral("layers.0.mlp.gelu")});
        QCOMPARE(why.exitCode, 0);
        QVERIFY2(why.out.contains("propagated from layers.0.mlp.fc1"), why.out.constData());
        QVERIFY(why.out.contains("tactic 2 megatron(model)"));
        const Run noOp = cli(QStringList{QStringLiteral("explain")} + base +
                             QStringList{QStringLiteral("--plan"), plan, QStringLiteral("--op"), QStringLiteral("nothing")});
        QCOMPARE(noOp.exitCode, 2);
        QVERIFY(noOp.err.contains("no such op"));
        QFile::remove(plan);
        const Run noMesh = cli(QStringList{QStringLiteral("search")} + base + QStringList{QStringLiteral("--tactics"), tactics});
        QCOMPARE(noMesh.exitCode, 2);
        QVERIFY(noMesh.err.contains("--mesh"));
        const Run badAxis = cli(QStringList{QStringLiteral("search")} + base +
                                QStringList{QStringLiteral("--mesh"), QStringLiteral("data=8"), QStringLiteral("--tactics"), tactics});
        QCOMPARE(badAxis.exitCode, 2);
        QVERIFY2(badAxis.err.contains("tactic 2 megatron(model): the mesh data=8 has no axis 'model'"), badAxis.err.constData());
    }
    void autoSettingsRoundTripThroughThePlanFile() {
        // gpt3-1.3b at batch 256 on one DGX A100 node: with every setting left to the search it picks
        // more than one micro-batch (without recomputation a layer keeps ~150 MB per sequence of 2048
        // at TP 2, so 64 sequences per replica would need ~230 GB). The plan file keeps
        // what it chose, and evaluating the file reproduces the figures.
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-auto.plan.json"));
        const QStringList model{QStringLiteral("--model"), QStringLiteral("gpt3-1.3b"), QStringLiteral("--batch"),
                                QStringLiteral("256"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100"),
                                QStringLiteral("--json")};
        const Run searched = cli(QStringList{QStringLiteral("search"), QStringLiteral("--zero"), QStringLiteral("auto"),
                                             QStringLiteral("--recompute"), QStringLiteral("auto"),
                                             QStringLiteral("--microbatches"), QStringLiteral("auto"),
                                             QStringLiteral("--plan-out"), path} + model);
        QCOMPARE(searched.exitCode, 0);
        const QJsonObject s = QJsonDocument::fromJson(searched.out).object();
        QVERIFY(s[QStringLiteral("feasible")].toBool());
        const QJsonObject chosen = s[QStringLiteral("settings_chosen")].toObject();
        QVERIFY(chosen[QStringLiteral("microbatches")].toInt() > 1);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject settings = QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("settings")].toObject();
        QCOMPARE(settings[QStringLiteral("microbatches")].toInt(), chosen[QStringLiteral("microbatches")].toInt());
        QCOMPARE(settings[QStringLiteral("zero_stage")].toInt(), chosen[QStringLiteral("zero_stage")].toInt());
        QCOMPARE(settings[QStringLiteral("recompute")].toString(), chosen[QStringLiteral("recompute")].toString());
        const Run again = cli(QStringList{QStringLiteral("evaluate"), QStringLiteral("--strategy"), path} + model);
        QCOMPARE(again.exitCode, 0);
        const QJsonObject e = QJsonDocument::fromJson(again.out).object();
        QCOMPARE(e[QStringLiteral("step_time_s")].toDouble(), s[QStringLiteral("step_time_s")].toDouble());
        QCOMPARE(e[QStringLiteral("peak_memory_bytes")].toDouble(), s[QStringLiteral("peak_memory_bytes")].toDouble());
        // A fixed value stays fixed; "auto" is for the search only.
        const Run fixed = cli(QStringList{QStringLiteral("search"), QStringLiteral("--zero"), QStringLiteral("3"),
                                          QStringLiteral("--microbatches"), QStringLiteral("4")} + model);
        QCOMPARE(fixed.exitCode, 0);
        const QJsonObject f = QJsonDocument::fromJson(fixed.out).object()[QStringLiteral("settings_chosen")].toObject();
        QCOMPARE(f[QStringLiteral("zero_stage")].toInt(), 3);
        QCOMPARE(f[QStringLiteral("microbatches")].toInt(), 4);
        const Run bad = cli(QStringList{QStringLiteral("evaluate"), QStringLiteral("--zero"), QStringLiteral("auto")} + model);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("only search chooses"));
        QFile::remove(path);
    }
    void attentionKernelIsAStepSetting() {
        // Fused by default; unfused keeps the s x s scores (gpt: 16 heads x 1024^2 per sequence) and
        // runs slower; a name that is neither is refused.
        const QStringList base{QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("gpt"),
                               QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--json")};
        const Run fused = cli(base);
        const Run unfused = cli(base + QStringList{QStringLiteral("--attention"), QStringLiteral("unfused")});
        QCOMPARE(fused.exitCode, 0);
        QCOMPARE(unfused.exitCode, 0);
        const QJsonObject f = QJsonDocument::fromJson(fused.out).object();
        const QJsonObject u = QJsonDocument::fromJson(unfused.out).object();
        auto activations = [](const QJsonObject& o) {
            return o[QStringLiteral("memory_breakdown")].toObject()[QStringLiteral("activations")].toDouble();
        };
        QVERIFY(activations(u) > activations(f));
        QVERIFY(u[QStringLiteral("step_time_s")].toDouble() > f[QStringLiteral("step_time_s")].toDouble());
        const Run bad = cli(base + QStringList{QStringLiteral("--attention"), QStringLiteral("flash")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--attention flash: expected fused or unfused"), bad.err.constData());
    }
    void lossKernelIsAStepSetting() {
        // Unfused by default (FP32 passes over the logits, loss_traffic.h); the fused kernel moves
        // fewer bytes, so the step is shorter and the plan file says which ran; a name that is neither
        // is refused.
        const QStringList base{QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("gpt"),
                               QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--json")};
        QTemporaryDir dir;
        const QString plan = dir.filePath(QStringLiteral("fused.plan.json"));
        const Run unfused = cli(base);
        const Run fused = cli(base + QStringList{QStringLiteral("--loss"), QStringLiteral("fused"),
                                                 QStringLiteral("--plan-out"), plan});
        QCOMPARE(unfused.exitCode, 0);
        QCOMPARE(fused.exitCode, 0);
        const double u = QJsonDocument::fromJson(unfused.out).object()[QStringLiteral("step_time_s")].toDouble();
        const double f = QJsonDocument::fromJson(fused.out).object()[QStringLiteral("step_time_s")].toDouble();
        QVERIFY2(f < u, qPrintable(QStringLiteral("%1 vs %2").arg(f).arg(u)));
        QFile file(plan);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject settings = QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("settings")].toObject();
        QCOMPARE(settings[QStringLiteral("loss")].toString(), QStringLiteral("fused"));
        const Run bad = cli(base + QStringList{QStringLiteral("--loss"), QStringLiteral("fast")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--loss fast: expected unfused or fused"), bad.err.constData());
    }
    void calibrateWritesAClusterThatPredictsTheRuns() {
        // The sample measurements (Narayanan 2021 Table 1 rows 1-4 and Korthikanti 2022's 22B times
        // as step times): the fitted cluster is written, loads again, and predicts every run closer
        // overall than the preset did.
        const QString sample = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/samples/measurements/megatron-a100.measurements.json");
        const QString out = QDir::temp().filePath(QStringLiteral("shardscope-tst-fitted.cluster.json"));
        QFile::remove(out);
        const Run fit = cli({QStringLiteral("calibrate"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100"),
                             QStringLiteral("--measurements"), sample, QStringLiteral("--out"), out,
                             QStringLiteral("--json")});
        QCOMPARE(fit.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(fit.out).object();
        double before = 0, after = 0;
        for (const QJsonValue& v : doc[QStringLiteral("runs")].toArray()) {
            const QJsonObject r = v.toObject();
            const double m = r[QStringLiteral("measured_s")].toDouble();
            before += std::pow(std::log(r[QStringLiteral("predicted_before_s")].toDouble() / m), 2);
            after += std::pow(std::log(r[QStringLiteral("predicted_after_s")].toDouble() / m), 2);
        }
        QVERIFY2(after < before, qPrintable(QStringLiteral("%1 >= %2").arg(after).arg(before)));
        const Run again = cli({QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("gpt"),
                               QStringLiteral("--cluster"), out, QStringLiteral("--nodes"), QStringLiteral("2")});
        QCOMPARE(again.exitCode, 0);
        QFile::remove(out);
        const Run missing = cli({QStringLiteral("calibrate"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains("--measurements"));
        const Run bad = cli({QStringLiteral("calibrate"), QStringLiteral("--cluster"), QStringLiteral("dgx-a100"),
                             QStringLiteral("--measurements"), QStringLiteral(SHARDSCOPE_SOURCE_DIR "/README.md")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("README.md"), bad.err.constData());
    }
    void fidelityTableNamesEverySource() {
        // bench --fidelity: the 21 published A100 runs, the Megatron-LM README's 8 H100 rows, Megatron-Bridge's
        // 15 Llama 3 rows, 12 Qwen3 rows (25.11 and 26.08), a DeepSeek-V3 row and 6 GPT OSS rows, the fourteen
        // Table 2 settings and the cross-checks' predictions after calibrating on other runs (4 + 1 + 3), each
        // with its source and predicted / published. 63 runs predicted and eight fits: about 20 s in a release
        // build, several minutes sanitized.
        const Run r = cli({QStringLiteral("bench"), QStringLiteral("--fidelity"), QStringLiteral("--json")}, 900000);
        QCOMPARE(r.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(rows.size(), 21 + 8 + 34 + 14 + 4 + 1 + 3);
        int calibrated = 0;
        for (const QJsonValue& v : rows) {
            const QJsonObject row = v.toObject();
            const QString source = row[QStringLiteral("source")].toString();
            QVERIFY2(source.contains(QStringLiteral("et al.")) || source.contains(QStringLiteral("docs/performance.md")) ||
                         source.contains(QStringLiteral("Megatron-LM README")) ||
                         source.contains(QStringLiteral("docs/performance-summary.md")),
                     qPrintable(source));
            calibrated += row.contains(QStringLiteral("calibrated_on")) ? 1 : 0;
            QCOMPARE(row[QStringLiteral("ratio")].toDouble(),
                     row[QStringLiteral("predicted")].toDouble() / row[QStringLiteral("published")].toDouble());
        }
        QCOMPARE(calibrated, 8);
        const Run bad = cli({QStringLiteral("bench"), QStringLiteral("--suite"), QStringLiteral("fidelty")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("expected all, speed, quality, fidelity or clock"));
    }
    void benchCountsInstructions() {
        // bench --instructions: each row's search once under callgrind. TAPAS folds the 24 layers that
        // PaSE solves one by one, so it runs fewer instructions (about 36 M against 223 M).
        const Run bad = cli({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("no such row")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("no row of the suite"), bad.err.constData());
        const Run outOfRange = cli({QStringLiteral("bench"), QStringLiteral("--count"), QStringLiteral("100000")});
        QCOMPARE(outOfRange.exitCode, 2);
        QVERIFY2(outOfRange.err.contains("expected a scenario index"), outOfRange.err.constData());
        if (qEnvironmentVariableIsSet("ASAN_OPTIONS"))
            QSKIP("valgrind cannot run the sanitized build's CLI (the sanitizer pass); ./test.sh runs this");
        const Run r = cli({QStringLiteral("bench"), QStringLiteral("--suite"), QStringLiteral("speed"), QStringLiteral("--quick"),
                           QStringLiteral("--only"), QStringLiteral("gpt fixed width, 24 layers"),
                           QStringLiteral("--instructions"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(rows.size(), 2);
        double tapas = 0, pase = 0;
        for (const QJsonValue& v : rows) {
            const QJsonObject row = v.toObject();
            QCOMPARE(row[QStringLiteral("name")].toString(), QStringLiteral("gpt fixed width, 24 layers"));
            const double count = row[QStringLiteral("instructions")].toDouble();
            QVERIFY2(count > 1e6, qPrintable(QString::number(count)));
            (row[QStringLiteral("algorithm")].toString() == QStringLiteral("tapas") ? tapas : pase) = count;
        }
        QVERIFY2(tapas > 0 && pase > 2 * tapas, qPrintable(QStringLiteral("tapas %1, pase %2").arg(tapas).arg(pase)));
    }
    void planOutRoundTripsThroughEvaluate() {
        const QString path = QDir::temp().filePath(QStringLiteral("shardscope-tst-cli.plan.json"));
        const QStringList base{QStringLiteral("evaluate"), QStringLiteral("--model"), QStringLiteral("llama"),
                               QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--json")};
        const Run first = cli(base + QStringList{QStringLiteral("--mesh"), QStringLiteral("data=4,model=2"),
                                                 QStringLiteral("--strategy"), QStringLiteral("megatron+zero1"),
                                                 QStringLiteral("--plan-out"), path});
        QCOMPARE(first.exitCode, 0);
        const Run again = cli(base + QStringList{QStringLiteral("--strategy"), path});
        QCOMPARE(again.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(first.out).object(), b = QJsonDocument::fromJson(again.out).object();
        QCOMPARE(b[QStringLiteral("step_time_s")].toDouble(), a[QStringLiteral("step_time_s")].toDouble());
        QCOMPARE(b[QStringLiteral("peak_memory_bytes")].toDouble(), a[QStringLiteral("peak_memory_bytes")].toDouble());
        QFile::remove(path);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
