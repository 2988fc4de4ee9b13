// The plain main window: shows an evaluation, and keeps it when the next scenario is bad.

#include "main_window.h"

#include <QTableWidget>
#include <QTest>

using namespace shardscope;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void showsEvaluationAndKeepsItOnBadInput() {
        ui::MainWindow w;
        ScenarioRequest good;
        good.model.spec = "gpt";
        good.cluster = "dgx-a100";
        good.mesh = "data=4,model=2";
        good.strategy = "megatron";
        QCOMPARE(w.openScenario(good), QString());
        const auto shown = w.evaluation();
        QVERIFY(shown);
        auto* table = w.findChild<QTableWidget*>();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), static_cast<int>(shown->perOp.size()));

        ScenarioRequest bad = good;
        bad.mesh = "data=3";
        const QString error = w.openScenario(bad);
        QVERIFY2(error.contains(QStringLiteral("has 3 devices")), qPrintable(error));
        QCOMPARE(w.evaluation(), shown);
        QCOMPARE(table->rowCount(), static_cast<int>(shown->perOp.size()));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
