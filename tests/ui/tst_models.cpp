// Item models pass QAbstractItemModelTester with real plans, across resets, and their sort roles
// order numbers as numbers.

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

#include "models/alternatives_model.h"
#include "models/ops_model.h"
#include "models/tactics_model.h"
#include "session/plan_state.h"

#include "engine/plans/baselines.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

PlanState megatronState(const char* model) {
    auto problem = loadProblem(readModelSource(ModelRequest{model, {"layers=2"}, std::nullopt}), "dgx-a100", std::nullopt, 1);
    return costPlan(problem, baselinePlan(*problem->graph, Mesh::parse("data=4,model=2"), "megatron", {}));
}

} // namespace

class TestModels : public QObject {
    Q_OBJECT
private slots:
    void opsModel() {
        OpsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const PlanState s = megatronState("gpt");
        model.setState(s);
        QCOMPARE(model.rowCount(), int(s.problem->graph->ops().size()));
        for (OpId o : s.problem->graph->topoOrder()) {
            const int row = model.rowOf(o);
            QCOMPARE(model.data(model.index(row, OpsModel::Name)).toString(),
                     QString::fromStdString(s.problem->graph->op(o).name));
            QCOMPARE(model.data(model.index(row, OpsModel::Name), OpsModel::OpIdRole).toInt(), o.value);
            QCOMPARE(model.data(model.index(row, OpsModel::Compute), OpsModel::SortRole).toDouble(),
                     s.evaluation->perOp[o.index()].computeTime);
        }
        model.setState(megatronState("llama"));
        QVERIFY(model.rowCount() > 0);
        // Sorting by communication orders the seconds, not their text.
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(OpsModel::SortRole);
        sorted.sort(OpsModel::Communication, Qt::DescendingOrder);
        for (int r = 1; r < sorted.rowCount(); ++r)
            QVERIFY(sorted.data(sorted.index(r - 1, OpsModel::Communication), OpsModel::SortRole).toDouble() >=
                    sorted.data(sorted.index(r, OpsModel::Communication), OpsModel::SortRole).toDouble());
    }
    void tacticsModel() {
        TacticsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const PlanState s = megatronState("gpt");
        Tactic batch;
        batch.axis = "data";
        Tactic megatron;
        megatron.kind = TacticKind::Megatron;
        megatron.axis = "model";
        model.setTactics({batch, megatron}, nullptr);
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(!model.data(model.index(0, 0), TacticsModel::StepRole).toBool());
        TacticRequest r;
        r.graph = s.problem->graph;
        r.cluster = s.problem->cluster;
        r.mesh = s.plan.mesh;
        r.tactics = {batch, megatron};
        r.threads = 1;
        const auto run = runTactics(r);
        model.setTactics({batch, megatron}, run);
        QVERIFY(model.data(model.index(1, 0), TacticsModel::StepRole).toBool());
        QCOMPARE(model.data(model.index(1, TacticsModel::Tactic)).toString(), QStringLiteral("megatron(model)"));
        QVERIFY(!model.data(model.index(1, TacticsModel::StepTime)).toString().isEmpty());
        // Figures of another script are not shown against this one.
        model.setTactics({batch}, run);
        QVERIFY(!model.data(model.index(0, 0), TacticsModel::StepRole).toBool());
    }
    void alternativesModel() {
        AlternativesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const PlanState s = megatronState("gpt");
        const OpId fc1 = *s.problem->graph->findOp("layers.0.mlp.fc1");
        auto alternatives = whatIf(*s.model, s.plan, *s.evaluation, fc1);
        const std::size_t n = alternatives.size();
        model.setAlternatives(std::move(alternatives), s.evaluation->stepTime, s.evaluation->peakMemory);
        QCOMPARE(model.rowCount(), int(n));
        int current = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.data(model.index(r, 0), AlternativesModel::CurrentRole).toBool()) {
                ++current;
                QCOMPARE(model.data(model.index(r, AlternativesModel::StepDelta)).toString(), QStringLiteral("0"));
            }
        QCOMPARE(current, 1);
        model.setAlternatives({}, 0, 0);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestModels)
#include "tst_models.moc"
