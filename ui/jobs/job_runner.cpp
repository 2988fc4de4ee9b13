#include "job_runner.h"

#include <QMetaObject>

namespace shardscope::ui {

namespace {
/// Least time between two progress updates of one job.
constexpr qint64 kProgressIntervalMs = 100;
} // namespace

QThreadPool* serialPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

JobRunner::JobRunner(QThreadPool* pool, QObject* parent) : QObject(parent), pool_(pool) {}

JobRunner::~JobRunner() {
    stop_.request_stop();
    ++generation_;
    for (Pending& p : pending_)
        p.wait();
}

quint64 JobRunner::begin(const QString& title) {
    stop_.request_stop();
    stop_ = std::stop_source();
    std::erase_if(pending_, [](const Pending& p) { return p.finished(); });
    busy_ = true;
    title_ = title;
    clock_.start();
    emit started(title);
    return ++generation_;
}

void JobRunner::cancel() {
    if (!busy_)
        return;
    stop_.request_stop();
    ++generation_;
    busy_ = false;
    emit finished(title_, true);
}

std::function<void(double, const QString&)> JobRunner::progressFor(quint64 generation) {
    auto last = std::make_shared<std::atomic<qint64>>(-kProgressIntervalMs);
    QElapsedTimer clock;
    clock.start();
    return [this, generation, last, clock](double fraction, const QString& detail) {
        const qint64 now = clock.elapsed();
        qint64 before = last->load();
        if (fraction < 1 && now - before < kProgressIntervalMs)
            return;
        if (!last->compare_exchange_strong(before, now))
            return;
        // The runner outlives its jobs (its destructor waits for them), so `this` is valid here.
        QMetaObject::invokeMethod(
            this, [this, generation, fraction, detail] { deliverProgress(generation, fraction, detail); },
            Qt::QueuedConnection);
    };
}

void JobRunner::deliverProgress(quint64 generation, double fraction, const QString& detail) {
    if (generation != generation_ || !busy_)
        return;
    const double elapsed = clock_.elapsed() / 1000.0;
    const double left = fraction > 0.02 && fraction < 1 ? elapsed * (1 - fraction) / fraction : -1;
    emit progressed(fraction, detail, left);
}

void JobRunner::end(quint64 generation, const QString& error) {
    if (generation != generation_)
        return;
    busy_ = false;
    if (!error.isEmpty())
        emit failed(title_, error);
    emit finished(title_, false);
}

} // namespace shardscope::ui
