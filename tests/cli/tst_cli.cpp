// The shardscope-cli contract: listings, evaluate's JSON fields, every preset with every baseline,
// and exit status 2 with one line naming the problem on bad input.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run cli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(SHARDSCOPE_CLI), args);
    p.waitForFinished(120000);
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
        QCOMPARE(list.size(), 3);
        QCOMPARE(list[0].toObject()[QStringLiteral("name")].toString(), QStringLiteral("dgx-a100"));
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
        QTest::newRow("bad recompute") << QStringList{ev, m, QStringLiteral("gpt"), c, a100, QStringLiteral("--recompute"), QStringLiteral("some")}
                                       << QStringLiteral("expected none, selective or full");
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
