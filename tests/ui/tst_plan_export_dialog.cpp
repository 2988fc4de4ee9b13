// File > Export Plan for a Framework: the dialog previews each format, shows the exporter's refusal
// instead of a text it cannot write (save and copy disabled), saves exactly what it shows, and the
// window's action opens it on the current plan.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "dialogs/plan_export_dialog.h"
#include "main_window.h"
#include "window_test_support.h"

#include "engine/builders/builders.h"
#include "engine/plans/baselines.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

using namespace shardscope;
using namespace shardscope::ui;
using namespace shardscope::ui::testing;

namespace {

/// An 8-layer GPT, global batch 64 of 256-token sequences, in 2 micro-batches.
Graph gpt8() {
    ModelParams p;
    p.layers = 8;
    p.hidden = 256;
    p.heads = 8;
    p.seq = 256;
    p.vocab = 512;
    p.batch = 64;
    return buildModel("gpt", p, 2, "gpt");
}

Plan planOn(const Graph& g, const char* mesh, const char* spec) {
    StepSettings s;
    s.microbatches = 2;
    return baselinePlan(g, Mesh::parse(mesh), spec, s);
}

QString statusOf(const PlanExportDialog& d) { return d.findChild<QLabel*>(QStringLiteral("exportStatus"))->text(); }
bool saveEnabled(const PlanExportDialog& d) { return d.findChild<QPushButton*>(QStringLiteral("saveButton"))->isEnabled(); }

} // namespace

class TestPlanExportDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void previewsEachFormatOrItsRefusal() {
        const Graph g = gpt8();
        const Plan p = planOn(g, "data=4,model=2", "megatron-sp+zero3");
        PlanExportDialog d(g, p, ExportBatch{64, 256}, QStringLiteral("gpt"));
        auto* preview = d.findChild<QPlainTextEdit*>(QStringLiteral("exportPreview"));
        // torchtitan runs FSDP2 + TP: 64 sequences = 4 replicas x 2 micro-batches x 8 each.
        d.setFormat(ExportFormat::Torchtitan);
        QVERIFY2(d.refusal().isEmpty(), qPrintable(d.refusal()));
        QVERIFY(d.text().contains(QStringLiteral("tensor_parallel_degree = 2\n")));
        QVERIFY(d.text().contains(QStringLiteral("data_parallel_shard_degree = 4\n")));
        QVERIFY(d.text().contains(QStringLiteral("local_batch_size = 8\n")));
        QCOMPARE(preview->toPlainText().trimmed(), d.text().trimmed());
        QVERIFY(saveEnabled(d));
        QVERIFY(statusOf(d).contains(QStringLiteral("torchtitan TOML of plan")));
        d.setFormat(ExportFormat::Dtensor);
        QVERIFY(d.text().contains(QStringLiteral("\"layers.*.mlp.fc1\": ColwiseParallel(input_layouts=Shard(1)")));
        // Megatron has no ZeRO-3 flag and DeepSpeed's config has no tensor axis: refused with the reason.
        d.setFormat(ExportFormat::Megatron);
        QVERIFY(d.text().isEmpty());
        QVERIFY2(d.refusal().contains(QStringLiteral("ZeRO-3 has no Megatron-LM flag")), qPrintable(d.refusal()));
        QVERIFY(statusOf(d).startsWith(QStringLiteral("Cannot export: megatron export:")));
        QVERIFY(preview->toPlainText().isEmpty());
        QVERIFY(!saveEnabled(d));
        d.setFormat(ExportFormat::Deepspeed);
        QVERIFY(d.refusal().contains(QStringLiteral("has axes besides one data axis")));
        d.setFormat(ExportFormat::Jax);
        QVERIFY(d.text().contains(QStringLiteral("MESH_SHAPE = (4, 2)")));
        QVERIFY(saveEnabled(d));
    }

    void formatsThatNeedABatchSayWhenTheModelFixesNone() {
        const Graph g = gpt8();
        PlanExportDialog d(g, planOn(g, "data=8", "dp"), std::nullopt, QStringLiteral("gpt"));
        d.setFormat(ExportFormat::Deepspeed);
        QVERIFY2(d.refusal().contains(QStringLiteral("fixes no global batch")), qPrintable(d.refusal()));
        d.setFormat(ExportFormat::Dtensor);
        QVERIFY(d.refusal().isEmpty());
    }

    void savesWhatItShows() {
        const Graph g = gpt8();
        const Plan p = planOn(g, "data=8", "zero2");
        PlanExportDialog d(g, p, ExportBatch{64, 256}, QStringLiteral("gpt"));
        d.setFormat(ExportFormat::Deepspeed);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("gpt.deepspeed.json"));
        QCOMPARE(d.saveTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), d.text());
        QVERIFY(d.text().contains(QStringLiteral("\"stage\": 2")));
        QVERIFY(!d.saveTo(dir.filePath(QStringLiteral("missing/dir/x.json"))).isEmpty());
        d.setFormat(ExportFormat::Megatron); // ZeRO-2: refused, and nothing is written
        QCOMPARE(d.saveTo(path), d.refusal());
    }

    void theWindowsActionOpensItOnTheCurrentPlan() {
        MainWindow w(nullptr, 1);
        w.show();
        w.session()->loads().openScenario(gptScenario("megatron"));
        QVERIFY(waitSettled(w));
        QAction* action = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E))
                action = a;
        QVERIFY(action);
        QString seen;
        QTimer::singleShot(0, &w, [&] {
            auto* d = qobject_cast<PlanExportDialog*>(QApplication::activeModalWidget());
            if (d) {
                d->setFormat(ExportFormat::Megatron);
                seen = d->text();
                d->reject();
            }
        });
        action->trigger();
        QVERIFY2(seen.contains(QStringLiteral("--tensor-model-parallel-size 2")), qPrintable(seen));
    }
};

QTEST_MAIN(TestPlanExportDialog)
#include "tst_plan_export_dialog.moc"
