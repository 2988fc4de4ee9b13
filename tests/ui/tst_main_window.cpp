// The window end to end (offscreen): open -> search -> override -> undo -> redo -> lock ->
// re-search keeps the lock -> save -> reopen; cancel; bad input keeps what was loaded; the longest
// UI-thread stall during a gpt3-175b search; screenshots with non-empty panels.

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGraphicsView>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QCheckBox>
#include <QComboBox>
#include <QTableWidget>
#include <QSpinBox>
#include <QTimer>

#include "compare/compare_model.h"
#include "compare/compare_view.h"
#include "graph/graph_items.h"
#include "graph/graph_view.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "main_window.h"
#include "panels/search_bar.h"
#include "window_test_support.h"
#include "models/alternatives_model.h"
#include "panels/inspector_panel.h"

using namespace shardscope;
using namespace shardscope::ui;
using namespace shardscope::ui::testing;

namespace {

constexpr int kSettleMs = 120000;

/// gpt3-175b on 128 DGX A100 nodes (1024 GPUs), data parallel to start.
/// Which ops the plan locks, in op order.
std::vector<bool> locksOf(const Plan& plan) {
    std::vector<bool> out;
    for (const OpChoice& c : plan.ops)
        out.push_back(c.locked);
    return out;
}

ScenarioRequest gpt3Scenario() {
    ScenarioRequest r;
    r.model.spec = "gpt3-175b";
    r.model.batch = 16; // a search of a few hundred ms: enough to measure stalls and to cancel
    r.cluster = "dgx-a100";
    r.nodes = 128;
    return r;
}


void search(MainWindow& w, std::optional<Mesh> mesh, bool aroundLocks = false) {
    SearchSettings s = w.session()->searchSettings();
    s.algorithm = SearchAlgorithm::Pase;
    s.mesh = std::move(mesh);
    w.session()->setSearchSettings(s);
    w.session()->search().run(aroundLocks);
}

/// The error dialog's text, closing it; empty if none is shown.
QString takeErrorDialog(MainWindow& w) {
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorDialog"));
    if (!box)
        return {};
    const QString text = box->text();
    box->close();
    QCoreApplication::processEvents();
    return text;
}


} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void openSearchOverrideUndoLockResearchSaveReopen() {
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(gptScenario("dp"));
        QVERIFY(waitSettled(w));
        QVERIFY(s->loaded());
        const double dp = s->state().evaluation->stepTime;

        QSignalSpy messages(s, &Session::message);
        search(w, Mesh::parse("data=4,model=2"));
        QVERIFY(waitSettled(w));
        const Plan searched = s->state().plan;
        // The search's message says how close to the fastest plan that fits it is proven to be.
        QVERIFY(!messages.isEmpty());
        const QString found = messages.back().at(0).toString();
        QVERIFY2(found.contains(QStringLiteral("fastest plan that fits")) || found.contains(QStringLiteral("no plan that fits is faster")),
                 qPrintable(found));
        QVERIFY(s->state().evaluation->stepTime <= dp);
        QCOMPARE(s->undoStack()->count(), 1);
        // Compare with baseline: the searched plan is never slower than the best baseline.
        QSignalSpy compared(s, &Session::comparison);
        s->compare().withBaselines();
        QTRY_COMPARE(compared.count(), 1);
        QVERIFY(compared.front().at(2).toDouble() <= compared.front().at(1).toDouble() * (1 + 1e-12));
        bool shown = false;
        for (QLabel* label : w.findChildren<QLabel*>())
            shown = shown || label->text().startsWith(QStringLiteral("vs ") + compared.front().at(0).toString());
        QVERIFY(shown);

        // Override fc1 with its cheapest other strategy, through the inspector.
        const OpId fc1 = *s->state().problem->graph->findOp("layers.0.mlp.fc1");
        s->selectOp(fc1);
        AlternativesModel* alternatives = w.inspector()->alternatives();
        QVERIFY(alternatives->rowCount() > 1);
        int other = -1;
        for (int r = 0; r < alternatives->rowCount(); ++r)
            if (!alternatives->alternative(r).current && (other < 0 || alternatives->alternative(r).stepTime <
                                                                            alternatives->alternative(other).stepTime))
                other = r;
        const WhatIf chosen = alternatives->alternative(other);
        s->overrideStrategy(fc1, chosen.strategy);
        QCOMPARE(s->state().plan.ops[fc1.index()].strategy, chosen.strategy);
        QVERIFY(std::abs(s->state().evaluation->objective - chosen.stepTime) <= 1e-9 * chosen.stepTime);
        const Plan overridden = s->state().plan;

        s->undoStack()->undo();
        QCOMPARE(s->state().plan.strategies(), searched.strategies());
        s->undoStack()->redo();
        QCOMPARE(s->state().plan.strategies(), overridden.strategies());

        s->setLocked(fc1, true);
        QVERIFY(s->state().plan.ops[fc1.index()].locked);
        search(w, std::nullopt, true);
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.ops[fc1.index()].strategy, chosen.strategy);
        QVERIFY(s->state().plan.ops[fc1.index()].locked);
        QCOMPARE(s->state().plan.mesh.toString(), std::string("data=4,model=2"));
        const Plan kept = s->state().plan;
        const double keptTime = s->state().evaluation->stepTime;

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("edited.plan.json"));
        QCOMPARE(s->loads().savePlan(path), QString());
        QVERIFY(s->undoStack()->isClean());
        s->undoStack()->undo(); // back past the re-search and the lock, then reopen the file
        s->undoStack()->undo();
        QVERIFY(!s->state().plan.ops[fc1.index()].locked);
        w.openFile(path);
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.strategies(), kept.strategies());
        QCOMPARE(locksOf(s->state().plan), locksOf(kept));
        QCOMPARE(s->state().evaluation->stepTime, keptTime);
        QCOMPARE(takeErrorDialog(w), QString());
    }

    void editedPlanIsAutosavedAndRecoveredAfterACrash() {
        // A clean slate: copies left by earlier runs in the test-mode autosave directory go.
        QDir(autosaveDirectory()).removeRecursively();
        Plan edited;
        double editedTime = 0;
        {
            MainWindow w(nullptr, 1);
            Session* s = w.session();
            s->loads().openScenario(gptScenario("dp"));
            QVERIFY(waitSettled(w));
            const QString slot = w.autosave()->slot();
            QVERIFY(!slot.isEmpty());
            QVERIFY(!QFileInfo::exists(slot + QStringLiteral("/plan.json"))); // nothing edited yet
            const OpId fc1 = *s->state().problem->graph->findOp("layers.0.mlp.fc1");
            s->selectOp(fc1);
            AlternativesModel* alternatives = w.inspector()->alternatives();
            int other = -1;
            for (int r = 0; r < alternatives->rowCount() && other < 0; ++r)
                other = alternatives->alternative(r).current ? -1 : r;
            QVERIFY(other >= 0);
            s->overrideStrategy(fc1, alternatives->alternative(other).strategy);
            s->setLocked(fc1, true);
            edited = s->state().plan;
            editedTime = s->state().evaluation->stepTime;
            // The copy lands a moment after the last edit, without any save.
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(slot + QStringLiteral("/scenario.json")), 10000);
            // A running instance's copy is never offered to another.
            QVERIFY(!findRecoverablePlan(autosaveDirectory()));
            // The window goes away without being closed, as in a crash: the copy stays.
        }
        const std::optional<RecoverablePlan> found = findRecoverablePlan(autosaveDirectory());
        QVERIFY(found);
        QVERIFY2(found->description.startsWith(QStringLiteral("gpt")), qPrintable(found->description));
        QVERIFY(found->originalPlan.isEmpty());
        {
            MainWindow w(nullptr, 1);
            Session* s = w.session();
            w.recover(*found);
            QVERIFY(waitSettled(w));
            QCOMPARE(s->state().plan.strategies(), edited.strategies());
            QCOMPARE(locksOf(s->state().plan), locksOf(edited));
            QCOMPARE(s->state().evaluation->stepTime, editedTime);
            // Still unsaved: closing asks, and saving asks where (the copy is not its file).
            QVERIFY(!s->undoStack()->isClean());
            QVERIFY(s->planPath().isEmpty());
            // The copy moved into this window's slot: a second crash would not lose it.
            const QString slot = w.autosave()->slot();
            QVERIFY(QFileInfo::exists(slot + QStringLiteral("/plan.json")));
            QVERIFY(!QFileInfo::exists(found->slot + QStringLiteral("/plan.json")));
            // Saving the plan removes the copy.
            QTemporaryDir dir;
            QCOMPARE(s->loads().savePlan(dir.filePath(QStringLiteral("recovered.plan.json"))), QString());
            QVERIFY(!QFileInfo::exists(slot + QStringLiteral("/plan.json")));
        }
        QVERIFY(!findRecoverablePlan(autosaveDirectory()));
    }

    void searchBarOffersAutoForEverySetting() {
        // ZeRO stage, recomputation and micro-batches start at "auto" (the search chooses them); a
        // value picked in the bar is fixed in the session's settings, and "auto" again opens it.
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(gptScenario("dp"));
        QVERIFY(waitSettled(w));
        auto* zero = w.findChild<QComboBox*>(QStringLiteral("zero"));
        auto* recompute = w.findChild<QComboBox*>(QStringLiteral("recompute"));
        auto* micro = w.findChild<QSpinBox*>(QStringLiteral("microbatches"));
        QVERIFY(zero && recompute && micro);
        QCOMPARE(zero->currentText(), QStringLiteral("auto"));
        QCOMPARE(recompute->currentText(), QStringLiteral("auto"));
        QCOMPARE(micro->text(), QStringLiteral("auto"));
        QVERIFY(!s->searchSettings().zeroStage && !s->searchSettings().recompute && !s->searchSettings().microbatches);
        zero->setCurrentIndex(zero->findText(QStringLiteral("2")));
        recompute->setCurrentIndex(recompute->findText(QStringLiteral("full")));
        micro->setValue(4);
        QCOMPARE(s->searchSettings().zeroStage, std::optional<int>(2));
        QCOMPARE(s->searchSettings().recompute, std::optional<Recompute>(Recompute::Full));
        QCOMPARE(s->searchSettings().microbatches, std::optional<int>(4));
        zero->setCurrentIndex(0);
        QVERIFY(!s->searchSettings().zeroStage);
    }
    void searchBarMeshIsAutoOrAParsedMesh() {
        // The mesh box holds "auto" (every candidate mesh: no mesh in the settings) or axes, parsed as
        // typed. Axes that do not parse name the problem in a dialog when Run is pressed, and no
        // search runs on the last good mesh; fixing the text clears it.
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(gptScenario("dp"));
        QVERIFY(waitSettled(w));
        auto* bar = w.findChild<SearchBar*>();
        QVERIFY(bar);
        auto* mesh = bar->findChild<QComboBox*>(QStringLiteral("mesh"));
        QVERIFY(mesh);
        QCOMPARE(mesh->currentText(), QStringLiteral("auto"));
        QVERIFY(!s->searchSettings().mesh);
        mesh->setCurrentText(QStringLiteral("data=2,model=4"));
        QCOMPARE(s->searchSettings().mesh, std::optional<Mesh>(Mesh::parse("data=2,model=4")));
        mesh->setCurrentText(QStringLiteral("data=two"));
        QVERIFY(std::holds_alternative<QString>(bar->settings()));
        QCOMPARE(s->searchSettings().mesh, std::optional<Mesh>(Mesh::parse("data=2,model=4"))); // kept
        s->search().run(false);
        QVERIFY(waitSettled(w));
        const QString error = takeErrorDialog(w);
        QVERIFY2(error.contains(QStringLiteral("Mesh")) && error.contains(QStringLiteral("two")), qPrintable(error));
        QCOMPARE(s->undoStack()->count(), 0);
        mesh->setCurrentText(QStringLiteral("auto"));
        QVERIFY(!s->searchSettings().mesh);
        QVERIFY(std::holds_alternative<SearchSettings>(bar->settings()));
    }
    void searchesAPipelinedMeshWithTheScheduleFromTheBar() {
        // A pipe mesh typed in the bar (its pipelines are offered in the list) and "interleaved x 2"
        // picked in the schedule box: the searched plan cuts 8 layers into 2 stages x 2 chunks and
        // the evaluation the window shows is pipelined; "auto" again leaves the schedule open.
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(eightLayerScenario("dp", 2, "data=8,model=2"));
        QVERIFY(waitSettled(w));
        auto* bar = w.findChild<SearchBar*>();
        auto* mesh = bar->findChild<QComboBox*>(QStringLiteral("mesh"));
        auto* schedule = bar->findChild<QComboBox*>(QStringLiteral("schedule"));
        QVERIFY(mesh && schedule);
        QVERIFY(mesh->findText(QStringLiteral("pipe=2,data=4,model=2")) >= 0);
        QCOMPARE(schedule->currentText(), QStringLiteral("auto"));
        QVERIFY(!s->searchSettings().schedule);
        mesh->setCurrentText(QStringLiteral("pipe=2,data=4,model=2"));
        schedule->setCurrentIndex(schedule->findText(QStringLiteral("interleaved x 2")));
        QCOMPARE(s->searchSettings().schedule, std::optional<ScheduleChoice>(ScheduleChoice{Schedule::Interleaved, 2}));
        s->search().run(false);
        QVERIFY(waitSettled(w));
        QCOMPARE(takeErrorDialog(w), QString());
        const auto& state = s->state();
        QCOMPARE(state.plan.mesh.toString(), std::string("pipe=2,data=4,model=2"));
        QCOMPARE(state.plan.pipeline.stages, 2);
        QCOMPARE(state.plan.pipeline.virtualStages, 2);
        QCOMPARE(state.plan.settings.schedule, Schedule::Interleaved);
        QVERIFY(state.evaluation && state.evaluation->pipeline.active());
        // Evaluated once: the window shows the search's own evaluation and cost model, on the graph the
        // search planned for, and a fresh evaluation of the plan agrees with it.
        QCOMPARE(state.evaluation, s->search().last()->evaluation);
        QCOMPARE(state.model, s->search().last()->model);
        QCOMPARE(state.problem->graph, s->search().last()->graph);
        QCOMPARE(evaluate(*state.model, state.plan)->stepTime, state.evaluation->stepTime);
        // The status bar sums the pipeline up; its tooltip is the stage table.
        auto* pipeline = w.findChild<QLabel*>(QStringLiteral("pipelineLabel"));
        QVERIFY(pipeline);
        QVERIFY2(pipeline->text().startsWith(QStringLiteral("2 stages, interleaved x 2, ")), qPrintable(pipeline->text()));
        QVERIFY2(pipeline->toolTip().contains(QStringLiteral("\nstage 1: ")), qPrintable(pipeline->toolTip()));
        schedule->setCurrentIndex(0);
        QVERIFY(!s->searchSettings().schedule);
    }
    void aPipelinedPlanShowsItsStagesAndKeepsItsCut() {
        // An 8-layer GPT with a 50k vocabulary on pipe=4: the graph bands its ops by stage, the
        // timeline has schedule lanes, the Stages panel lists the stages. Locking the cut (undoable)
        // keeps it through a re-search; unlocked, a locked op in block 6 keeps stage 3 although the
        // search would otherwise give the heavy last stage block 7 alone.
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        ScenarioRequest r = eightLayerScenario("megatron-sp", 4, "pipe=4,data=2,model=4");
        r.microbatches = 8;
        s->loads().openScenario(r);
        QVERIFY(waitSettled(w));
        QCOMPARE(takeErrorDialog(w), QString());
        QVERIFY(s->state().evaluation->pipeline.active());
        QVERIFY(w.showPanel(QStringLiteral("stages")));
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("stageTable"));
        auto* lockCut = w.findChild<QCheckBox*>(QStringLiteral("lockCut"));
        QVERIFY(table && lockCut);
        QCOMPARE(table->rowCount(), 4);
        QCOMPARE(table->item(3, 1)->text(), QStringLiteral("6-7"));
        int banded = 0;
        for (QGraphicsItem* item : w.graphView()->scene()->items())
            if (auto* n = dynamic_cast<NodeItem*>(item); n && !n->look().stages.isEmpty())
                ++banded;
        QVERIFY(banded >= 5); // embedding ops, the stack, the head and the loss
        TimelineView* timeline = w.timelinePanel()->view();
        QVERIFY(timeline->data() && timeline->data()->pipelined());
        // Its nodes start folded, each header drawing a stage's schedule; unfolding shows the lanes.
        w.showPanel(QStringLiteral("timeline"));
        const SimEvent& first = timeline->data()->sim->timeline(0).events.front();
        QVERIFY(!timeline->pointOf(0, first));
        timeline->toggleNode(0);
        QVERIFY(timeline->pointOf(0, first));
        w.showPanel(QStringLiteral("stages"));

        // The inspector names the selected op's stage; Compare splits the bubble from communication:
        // each plan's step is compute + exposed communication + optimizer + bubble.
        s->selectOp(*s->state().problem->graph->findOp("lm_head"));
        QVERIFY2(w.inspector()->details().contains(QStringLiteral("stage <b>3</b> of 4")),
                 qPrintable(w.inspector()->details()));
        // An attention op says which keys its queries see: a decoder's causal mask, half the products.
        s->selectOp(*s->state().problem->graph->findOp("layers.0.attn.scores"));
        QVERIFY2(w.inspector()->details().contains(QStringLiteral("attention core, causal: a fused kernel computes 50%")),
                 qPrintable(w.inspector()->details()));
        w.showPanel(QStringLiteral("compare"));
        QVERIFY(waitSettled(w));
        QVERIFY(!w.compareView()->model()->rows().empty());
        for (const ComparedPlan& row : w.compareView()->model()->rows()) {
            QVERIFY(row.bubble > 0);
            QVERIFY(std::abs(row.compute + row.exposedComm + row.optimizer + row.bubble - row.stepTime) <= 1e-9 * row.stepTime);
        }
        // Overriding an op inside a stage re-costs the pipeline; undo restores it.
        {
            const OpId q = *s->state().problem->graph->findOp("layers.2.attn.q");
            const Op& qop = s->state().problem->graph->op(q);
            const OpStrategy before = s->state().plan.ops[q.index()].strategy;
            const double step = s->state().evaluation->stepTime;
            std::optional<OpStrategy> other;
            for (const OpStrategy& candidate : enumerateStrategies(qop, s->state().plan.mesh))
                if (!(candidate == before))
                    other = candidate;
            QVERIFY(other);
            s->overrideStrategy(q, *other);
            QVERIFY(waitSettled(w));
            QCOMPARE(s->state().plan.ops[q.index()].strategy, *other);
            QVERIFY(s->state().evaluation->pipeline.active());
            QCOMPARE(s->state().evaluation->pipeline.stageOfOp[q.index()], 1);
            QVERIFY(s->state().evaluation->stepTime != step);
            s->undoStack()->undo();
            QVERIFY(waitSettled(w));
            QCOMPARE(s->state().plan.ops[q.index()].strategy, before);
            QCOMPARE(s->state().evaluation->stepTime, step);
        }
        w.showPanel(QStringLiteral("stages"));
        lockCut->setChecked(true);
        QVERIFY(s->state().plan.pipeline.locked);
        s->undoStack()->undo();
        QVERIFY(!s->state().plan.pipeline.locked && !lockCut->isChecked());
        s->undoStack()->redo();
        QVERIFY(lockCut->isChecked());
        SearchSettings settings = s->searchSettings();
        settings.microbatches = 8;
        settings.schedule = ScheduleChoice{};
        s->setSearchSettings(settings);
        s->search().run(true);
        QVERIFY(waitSettled(w));
        QCOMPARE(takeErrorDialog(w), QString());
        QCOMPARE(s->state().plan.pipeline.chunkBlocks, (std::vector<int>{2, 2, 2, 2}));

        s->search().run(false); // mesh "auto" in the bar: a locked cut keeps the plan's mesh
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.pipeline.chunkBlocks, (std::vector<int>{2, 2, 2, 2}));
        lockCut->setChecked(false);
        s->search().run(true);
        QVERIFY(waitSettled(w));
        QCOMPARE(takeErrorDialog(w), QString());
        QCOMPARE(s->state().plan.pipeline.chunkBlocks.back(), 1); // the head's stage lightened
        const OpId op = *s->state().problem->graph->findOp("layers.6.attn.q");
        s->undoStack()->undo(); // back to the balanced cut, block 6 on stage 3
        QCOMPARE(s->state().plan.pipeline.stageOf(op), 3);
        s->setLocked(op, true);
        s->search().run(true);
        QVERIFY(waitSettled(w));
        QCOMPARE(takeErrorDialog(w), QString());
        QCOMPARE(s->state().plan.pipeline.stageOf(op), 3);
        QVERIFY(s->state().plan.ops[op.index()].locked);
    }
    void openedSettingsCarryIntoTheSearchBar() {
        // A scenario opened with unfused attention and no overlap: the next search uses the same,
        // and the bar shows them.
        MainWindow w(nullptr, 1);
        Session* s = w.session();
        ScenarioRequest r = gptScenario("megatron");
        r.attention = AttentionKernel::Unfused;
        r.overlap = false;
        s->loads().openScenario(r);
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.settings.overlap, false);
        QCOMPARE(s->searchSettings().attention, AttentionKernel::Unfused);
        QCOMPARE(s->searchSettings().overlap, false);
        QCOMPARE(w.findChild<QComboBox*>(QStringLiteral("attention"))->currentText(), QStringLiteral("unfused"));
        auto* overlap = w.findChild<QComboBox*>(QStringLiteral("overlap"));
        QCOMPARE(overlap->currentData().toInt(), 0);
        overlap->setCurrentIndex(overlap->findData(3));
        QVERIFY(s->searchSettings().overlap && s->searchSettings().tpOverlap == TpOverlap::Full);
        overlap->setCurrentIndex(overlap->findData(2));
        QCOMPARE(s->searchSettings().tpOverlap, TpOverlap::Backward);
    }
    void bucketSizeIsAnUndoableStepSetting() {
        // The timeline's bucket box re-costs the plan with gradient reductions coalesced into larger
        // buckets (data parallel over two nodes: fewer latencies per step, so the search's objective is
        // no slower), carries into the next search, and Undo brings the 25 MB plan back.
        MainWindow w(nullptr, 1);
        Session* s = w.session();
        ScenarioRequest r = gptScenario("dp");
        s->loads().openScenario(r);
        QVERIFY(waitSettled(w));
        const double before = s->state().evaluation->objective;
        QCOMPARE(s->state().plan.settings.bucketBytes, 25e6);
        auto* bucket = w.findChild<QSpinBox*>(QStringLiteral("bucketMb"));
        QVERIFY(bucket);
        QCOMPARE(bucket->value(), 25);
        bucket->setValue(200);
        emit bucket->editingFinished();
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.settings.bucketBytes, 200e6);
        QCOMPARE(s->searchSettings().bucketBytes, 200e6);
        QVERIFY(s->state().evaluation->objective <= before);
        QCOMPARE(s->undoStack()->count(), 1);
        s->undoStack()->undo();
        QVERIFY(waitSettled(w));
        QCOMPARE(s->state().plan.settings.bucketBytes, 25e6);
        QCOMPARE(bucket->value(), 25);
        QCOMPARE(s->state().evaluation->objective, before);
    }
    void badInputKeepsWhatWasLoaded() {
        MainWindow w(nullptr, 1);
        Session* s = w.session();
        s->loads().openScenario(gptScenario("dp"));
        QVERIFY(waitSettled(w));
        const auto shown = s->state().evaluation;

        w.openFile(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/fixtures/malformed.model.json"));
        QVERIFY(waitSettled(w));
        QString error = takeErrorDialog(w);
        QVERIFY2(error.contains(QStringLiteral("malformed.model.json")), qPrintable(error));
        QCOMPARE(s->state().evaluation, shown);

        ModelRequest unknown;
        unknown.spec = SHARDSCOPE_SOURCE_DIR "/tests/fixtures/unknown-kind.model.json";
        s->loads().openModel(unknown);
        QVERIFY(waitSettled(w));
        error = takeErrorDialog(w);
        QVERIFY2(error.contains(QStringLiteral("kind")), qPrintable(error));
        QCOMPARE(s->state().evaluation, shown);

        search(w, Mesh::parse("data=3"));
        QVERIFY(waitSettled(w));
        error = takeErrorDialog(w);
        QVERIFY2(error.contains(QStringLiteral("has 3 devices")), qPrintable(error));
        QCOMPARE(s->state().evaluation, shown);
        QCOMPARE(s->undoStack()->count(), 0);
    }

    void cancelReturnsToAnIdleConsistentWindow() {
        MainWindow w(nullptr, 1);
        Session* s = w.session();
        s->loads().openScenario(gpt3Scenario());
        QVERIFY(waitSettled(w));
        const auto before = s->state().evaluation;
        search(w, std::nullopt);
        QVERIFY(s->busy());
        QTest::qWait(30);
        s->cancel();
        QVERIFY(!s->busy());
        QVERIFY(w.settled());
        QCOMPARE(s->state().evaluation, before);
        auto* cancel = w.findChild<QPushButton*>();
        for (QPushButton* b : w.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(!cancel->isEnabled());
        QVERIFY(w.findChild<QProgressBar*>()->format().contains(QStringLiteral("cancelled")));
        // The stopped search's result never lands.
        QTest::qWait(1500);
        QCOMPARE(s->state().evaluation, before);
        QCOMPARE(s->undoStack()->count(), 0);
    }

    void uiThreadStaysResponsiveDuringAGpt3Search() {
        MainWindow w(nullptr, 1);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(gpt3Scenario());
        QVERIFY(waitSettled(w));
        // A 2 ms timer on the UI thread: the longest gap between its ticks is the longest stall.
        QElapsedTimer clock;
        qint64 last = 0, longest = 0;
        QTimer ticker;
        ticker.setTimerType(Qt::PreciseTimer);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.nsecsElapsed();
            longest = std::max(longest, now - last);
            last = now;
        });
        clock.start();
        ticker.start(2);
        SearchSettings settings = s->searchSettings();
        settings.algorithm = SearchAlgorithm::Auto;
        settings.mesh.reset();
        s->setSearchSettings(settings);
        s->search().run(false);
        QVERIFY(waitSettled(w));
        ticker.stop();
        QCOMPARE(s->undoStack()->count(), 1); // the search landed
        const double ms = longest / 1e6;
        qInfo("longest UI-thread stall during the gpt3-175b search on 1024 GPUs: %.1f ms (search %.0f ms)", ms,
              s->search().last()->report.searchSeconds * 1e3);
        QVERIFY2(ms < 50, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    }

    void screenshotShowsGraphAndInspector() {
        MainWindow w(nullptr, 1);
        w.resize(1400, 900);
        w.show();
        Session* s = w.session();
        s->loads().openScenario(gptScenario("dp"));
        QVERIFY(waitSettled(w));
        search(w, Mesh::parse("data=4,model=2"));
        QVERIFY(waitSettled(w));
        QTest::qWait(50);
        int nodes = 0;
        for (QGraphicsItem* item : w.graphView()->scene()->items())
            nodes += dynamic_cast<NodeItem*>(item) ? 1 : 0;
        QVERIFY(nodes > 0);
        QVERIFY(!w.graphView()->legendLabels().isEmpty());
        const QImage graph = w.graphView()->findChild<QGraphicsView*>()->viewport()->grab().toImage();
        QVERIFY2(inkFraction(graph) > 0.02, qPrintable(QString::number(inkFraction(graph))));
        QVERIFY(w.inspector()->alternatives()->rowCount() > 0);
        const QImage inspector = w.inspector()->grab().toImage();
        QVERIFY2(inkFraction(inspector) > 0.02, qPrintable(QString::number(inkFraction(inspector))));
    }

    void screenshotCommandWritesAPng() {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("window.png"));
        QProcess p;
        p.start(QStringLiteral(SHARDSCOPE_GUI),
                {QStringLiteral("--screenshot"), png, QStringLiteral("--model"), QStringLiteral("gpt"),
                 QStringLiteral("--cluster"), QStringLiteral("dgx-a100"), QStringLiteral("--mesh"),
                 QStringLiteral("data=4,model=2"), QStringLiteral("--algo"), QStringLiteral("pase")});
        QVERIFY(p.waitForFinished(kSettleMs));
        QCOMPARE(p.exitCode(), 0);
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1600, 1000));
        QVERIFY(inkFraction(image) > 0.05);
        // One panel on its own.
        QProcess panel;
        panel.start(QStringLiteral(SHARDSCOPE_GUI),
                    {QStringLiteral("--screenshot"), png, QStringLiteral("--view"), QStringLiteral("timeline"),
                     QStringLiteral("--model"), QStringLiteral("gpt"), QStringLiteral("--mesh"), QStringLiteral("data=8")});
        QVERIFY(panel.waitForFinished(kSettleMs));
        QCOMPARE(panel.exitCode(), 0);
        QVERIFY(QImage(png).width() >= 1000);
        QVERIFY(inkFraction(QImage(png)) > 0.05);
        // A bad mesh: exit status 2 and one line naming it.
        QProcess bad;
        bad.start(QStringLiteral(SHARDSCOPE_GUI), {QStringLiteral("--screenshot"), png, QStringLiteral("--mesh"),
                                                   QStringLiteral("data=3")});
        QVERIFY(bad.waitForFinished(kSettleMs));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(bad.readAllStandardError().contains("has 3 devices"));
        // A search mesh that does not parse, and an unknown algorithm: exit 2 naming them.
        for (const QStringList& args : {QStringList{QStringLiteral("--algo"), QStringLiteral("pase"), QStringLiteral("--mesh"),
                                                    QStringLiteral("data=x")},
                                        QStringList{QStringLiteral("--algo"), QStringLiteral("fastest")}}) {
            QProcess refused;
            refused.start(QStringLiteral(SHARDSCOPE_GUI), QStringList{QStringLiteral("--screenshot"), png} + args);
            QVERIFY(refused.waitForFinished(kSettleMs));
            QCOMPARE(refused.exitCode(), 2);
            const QByteArray err = refused.readAllStandardError();
            QVERIFY2(err.contains(args.back().toUtf8()), err.constData());
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
