#pragma once
// The one async helper of the UI (docs/DESIGN.md, The window). A runner runs one job at a time on a thread
// pool. A job gets a stop token and a throttled progress callback; its result comes back to the
// runner's thread by a queued call. Starting a job retires the one before it: its stop is
// requested and its result dropped (each job carries a generation number). Every long piece of
// work in the window (loading, searching, layout) goes through a JobRunner.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

namespace shardscope::ui {

/// A process-wide pool of one thread, for work that must never run concurrently (Graphviz layout).
QThreadPool* serialPool();

/// What a running job sees.
struct JobContext {
    std::stop_token stop;
    /// Reports `fraction` done (0..1) and a short `detail` ("best 5.77 s"); callable from any
    /// thread, throttled to a few updates a second.
    std::function<void(double fraction, const QString& detail)> progress;
};

/// Runs jobs off the UI thread, one at a time.
class JobRunner final : public QObject {
    Q_OBJECT
public:
    /// A runner on `pool` (not owned); a pool of one thread serialises the jobs it runs.
    explicit JobRunner(QThreadPool* pool, QObject* parent = nullptr);
    /// Requests every job's stop and waits for them (jobs stop within a fraction of a second).
    ~JobRunner() override;

    /// Starts `work` on the pool, retiring the current job. `done` gets the result on this object's
    /// thread unless the job was retired or threw; an exception becomes failed() with its message.
    template <typename R>
    void start(const QString& title, std::function<R(const JobContext&)> work, std::function<void(const R&)> done);
    /// Requests the current job's stop and drops its result; the runner is idle at once.
    void cancel();
    /// True while a job runs whose result is still wanted.
    bool busy() const { return busy_; }
    /// Title of the current (or last) job.
    QString title() const { return title_; }

signals:
    /// A job started.
    void started(const QString& title);
    /// Progress of the current job; `secondsLeft` is negative until it can be estimated.
    void progressed(double fraction, const QString& detail, double secondsLeft);
    /// The runner became idle: the job delivered its result, failed, or was cancelled.
    void finished(const QString& title, bool cancelled);
    /// The job threw; `message` names the problem.
    void failed(const QString& title, const QString& message);

private:
    template <typename R> struct Outcome {
        std::optional<R> value;
        QString error;
    };
    quint64 begin(const QString& title);
    std::function<void(double, const QString&)> progressFor(quint64 generation);
    void deliverProgress(quint64 generation, double fraction, const QString& detail);
    void end(quint64 generation, const QString& error);

    QThreadPool* pool_;
    quint64 generation_ = 0;
    std::stop_source stop_;
    bool busy_ = false;
    QString title_;
    QElapsedTimer clock_;
    /// Jobs that may still run: whether each has finished, and how to wait for it.
    struct Pending {
        std::function<bool()> finished;
        std::function<void()> wait;
    };
    std::vector<Pending> pending_;
};

template <typename R>
void JobRunner::start(const QString& title, std::function<R(const JobContext&)> work,
                      std::function<void(const R&)> done) {
    const quint64 generation = begin(title);
    JobContext context{stop_.get_token(), progressFor(generation)};
    auto future = QtConcurrent::run(pool_, [work = std::move(work), context]() {
        Outcome<R> out;
        try {
            out.value = work(context);
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
            if (out.error.isEmpty())
                out.error = QStringLiteral("unknown error");
        }
        return out;
    });
    pending_.push_back({[future] { return future.isFinished(); }, [future]() mutable { future.waitForFinished(); }});
    // A continuation attached to an already-finished future runs at once, inside start(); the
    // second, queued hop makes delivery always wait for the event loop, so busy() holds until then.
    future.then(this, [this, generation, done = std::move(done)](const Outcome<R>& out) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, done, out = std::make_shared<const Outcome<R>>(out)] {
                if (generation != generation_)
                    return;
                if (out->value)
                    done(*out->value);
                end(generation, out->error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace shardscope::ui
