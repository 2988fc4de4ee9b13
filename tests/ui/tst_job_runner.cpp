// The one async helper: results come back on the UI thread, a new job retires the old one (stop
// requested, result dropped), cancel makes the runner idle at once, exceptions become failures,
// progress arrives throttled.

#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "jobs/job_runner.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace shardscope::ui;

class TestJobRunner : public QObject {
    Q_OBJECT
private slots:
    void deliversOnTheCallersThread() {
        JobRunner runner(QThreadPool::globalInstance());
        QThread* worker = nullptr;
        QThread* delivered = nullptr;
        int result = 0;
        runner.start<int>(
            QStringLiteral("sum"),
            [&worker](const JobContext&) {
                worker = QThread::currentThread();
                return 6 * 7;
            },
            [&](const int& r) {
                delivered = QThread::currentThread();
                result = r;
            });
        QVERIFY(runner.busy());
        QTRY_VERIFY(!runner.busy());
        QCOMPARE(result, 42);
        QCOMPARE(delivered, QThread::currentThread());
        QVERIFY(worker != QThread::currentThread());
    }
    void aNewJobRetiresTheOld() {
        JobRunner runner(QThreadPool::globalInstance());
        std::atomic<bool> firstStopped{false};
        bool firstDelivered = false;
        int second = 0;
        runner.start<int>(
            QStringLiteral("slow"),
            [&firstStopped](const JobContext& c) {
                while (!c.stop.stop_requested())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                firstStopped = true;
                return 1;
            },
            [&firstDelivered](const int&) { firstDelivered = true; });
        runner.start<int>(QStringLiteral("fast"), [](const JobContext&) { return 2; }, [&second](const int& r) { second = r; });
        QTRY_VERIFY(!runner.busy());
        QTRY_VERIFY(firstStopped.load());
        QTest::qWait(50); // the retired job's result would arrive by now
        QVERIFY(!firstDelivered);
        QCOMPARE(second, 2);
    }
    void cancelIsIdleAtOnce() {
        JobRunner runner(QThreadPool::globalInstance());
        QSignalSpy finished(&runner, &JobRunner::finished);
        bool delivered = false;
        runner.start<int>(
            QStringLiteral("until stopped"),
            [](const JobContext& c) {
                while (!c.stop.stop_requested())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return 0;
            },
            [&delivered](const int&) { delivered = true; });
        runner.cancel();
        QVERIFY(!runner.busy());
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.front().at(1).toBool(), true);
        QTest::qWait(50);
        QVERIFY(!delivered);
        QCOMPARE(finished.count(), 1);
    }
    void exceptionsBecomeFailures() {
        JobRunner runner(QThreadPool::globalInstance());
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.start<int>(
            QStringLiteral("bad"), [](const JobContext&) -> int { throw std::runtime_error("model.json: field x"); },
            [](const int&) { QFAIL("no result expected"); });
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(failed.front().at(1).toString(), QStringLiteral("model.json: field x"));
        QVERIFY(!runner.busy());
    }
    void progressIsThrottledAndEstimatesTimeLeft() {
        JobRunner runner(QThreadPool::globalInstance());
        QSignalSpy progress(&runner, &JobRunner::progressed);
        runner.start<int>(
            QStringLiteral("steps"),
            [](const JobContext& c) {
                // 400 reports over about 0.4 s: at most one every 100 ms gets through, plus the last.
                for (int i = 1; i <= 400; ++i) {
                    c.progress(i / 400.0, QStringLiteral("step %1").arg(i));
                    std::this_thread::sleep_for(std::chrono::microseconds(1000));
                }
                return 0;
            },
            [](const int&) {});
        QTRY_VERIFY(!runner.busy());
        QVERIFY(progress.count() >= 2);
        QVERIFY(progress.count() <= 8);
        QCOMPARE(progress.last().at(0).toDouble(), 1.0);
        QCOMPARE(progress.last().at(1).toString(), QStringLiteral("step 400"));
        bool estimated = false;
        for (const auto& args : progress)
            estimated = estimated || args.at(2).toDouble() >= 0;
        QVERIFY(estimated);
    }
};

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
