#include "autosave.h"

#include "session.h"
#include "util/qt_text.h"

#include "engine/io/plan_file.h"
#include "engine/io/safe_write.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace shardscope::ui {

namespace {

/// Slots per autosave directory: the most instances that can keep copies at once.
constexpr int kSlots = 64;

QString planFile(const QString& slot) { return slot + QStringLiteral("/plan.json"); }
QString scenarioFile(const QString& slot) { return slot + QStringLiteral("/scenario.json"); }
QString lockFile(const QString& slot) { return slot + QStringLiteral("/lock"); }

/// `spec` as the next start can load it from anywhere: a file becomes its absolute path, a preset
/// name stays as it is.
QString portable(const std::string& spec) {
    const QFileInfo file(q(spec));
    return file.exists() ? file.absoluteFilePath() : q(spec);
}

/// How to load the problem's model and cluster again, with the plan's file, time and name.
std::string scenarioText(const Problem& problem, const QString& originalPlan) {
    QJsonObject o;
    o[QStringLiteral("format")] = QStringLiteral("shardscope-autosave");
    o[QStringLiteral("version")] = 1;
    o[QStringLiteral("model")] = portable(problem.source.request.spec);
    QJsonArray sets;
    for (const std::string& s : problem.source.request.sets)
        sets.append(q(s));
    o[QStringLiteral("sets")] = sets;
    if (problem.source.request.batch)
        o[QStringLiteral("batch")] = *problem.source.request.batch;
    o[QStringLiteral("cluster")] = portable(problem.clusterSpec);
    if (problem.nodes)
        o[QStringLiteral("nodes")] = *problem.nodes;
    o[QStringLiteral("original_plan")] = originalPlan;
    o[QStringLiteral("saved_at")] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    o[QStringLiteral("description")] = QStringLiteral("%1 on %2").arg(q(problem.graph->name), q(problem.cluster->name));
    return QJsonDocument(o).toJson().toStdString();
}

/// The copy in `slot`, or nullopt when its files are missing or do not parse.
std::optional<RecoverablePlan> readSlot(const QString& slot) {
    QFile file(scenarioFile(slot));
    if (!QFileInfo::exists(planFile(slot)) || !file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.read(1 << 20)).object();
    if (o.value(QStringLiteral("format")).toString() != QStringLiteral("shardscope-autosave") ||
        !o.value(QStringLiteral("model")).isString() || !o.value(QStringLiteral("cluster")).isString())
        return std::nullopt;
    RecoverablePlan r;
    r.slot = slot;
    r.request.model.spec = o.value(QStringLiteral("model")).toString().toStdString();
    for (const QJsonValue& s : o.value(QStringLiteral("sets")).toArray())
        r.request.model.sets.push_back(s.toString().toStdString());
    if (o.value(QStringLiteral("batch")).isDouble())
        r.request.model.batch = o.value(QStringLiteral("batch")).toInt();
    r.request.cluster = o.value(QStringLiteral("cluster")).toString().toStdString();
    if (o.value(QStringLiteral("nodes")).isDouble())
        r.request.nodes = o.value(QStringLiteral("nodes")).toInt();
    r.request.strategy = planFile(slot).toStdString();
    r.originalPlan = o.value(QStringLiteral("original_plan")).toString();
    r.savedAt = QDateTime::fromString(o.value(QStringLiteral("saved_at")).toString(), Qt::ISODateWithMs);
    r.description = o.value(QStringLiteral("description")).toString();
    return r;
}

} // namespace

Autosave::Autosave(Session* session, const QString& directory, int delayMs, QObject* parent)
    : QObject(parent), session_(session) {
    timer_.setSingleShot(true);
    timer_.setInterval(delayMs);
    connect(&timer_, &QTimer::timeout, this, [this] { writeNow(); });
    connect(session_->undoStack(), &QUndoStack::indexChanged, this, &Autosave::edited);
    connect(session_->undoStack(), &QUndoStack::cleanChanged, this, &Autosave::edited);
    // The first slot that no running instance holds and no ended instance left a copy in.
    QDir().mkpath(directory);
    for (int i = 1; i <= kSlots && slot_.isEmpty(); ++i) {
        const QString slot = QStringLiteral("%1/slot-%2").arg(directory).arg(i);
        if (!QDir().mkpath(slot))
            return;
        auto lock = std::make_unique<QLockFile>(lockFile(slot));
        lock->setStaleLockTime(0);
        if (!lock->tryLock(0))
            continue;
        if (readSlot(slot))
            continue; // left for recovery; the lock goes with `lock`
        slot_ = slot;
        lock_ = std::move(lock);
    }
}

Autosave::~Autosave() = default;

void Autosave::edited() {
    if (slot_.isEmpty())
        return;
    if (session_->undoStack()->isClean()) {
        discard();
        return;
    }
    timer_.start();
}

QString Autosave::writeNow() {
    timer_.stop();
    if (slot_.isEmpty())
        return {};
    if (!session_->loaded() || session_->undoStack()->isClean()) {
        discard();
        return {};
    }
    const PlanState& s = session_->state();
    try {
        // The plan first: a copy counts only once its scenario file names it.
        savePlan(planFile(slot_).toStdString(), s.plan, *s.problem->graph, s.evaluation.get());
        writeFileAtomically(scenarioFile(slot_).toStdString(), scenarioText(*s.problem, session_->planPath()));
    } catch (const std::exception& e) {
        const QString message = tr("Autosave of the edited plan failed: %1").arg(q(e.what()));
        emit failed(message);
        return message;
    }
    return {};
}

void Autosave::discard() {
    timer_.stop();
    if (slot_.isEmpty())
        return;
    QFile::remove(scenarioFile(slot_));
    QFile::remove(planFile(slot_));
}

ScenarioRequest Autosave::adopt(const RecoverablePlan& plan) {
    if (slot_.isEmpty())
        return plan.request;
    discard();
    if (!QFile::rename(planFile(plan.slot), planFile(slot_)) ||
        !QFile::rename(scenarioFile(plan.slot), scenarioFile(slot_)))
        return plan.request;
    removeRecoverablePlan(plan);
    ScenarioRequest request = plan.request;
    request.strategy = planFile(slot_).toStdString();
    return request;
}

std::optional<RecoverablePlan> findRecoverablePlan(const QString& directory) {
    std::optional<RecoverablePlan> newest;
    const QStringList names = QDir(directory).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& name : names) {
        const QString slot = directory + QLatin1Char('/') + name;
        QLockFile lock(lockFile(slot));
        lock.setStaleLockTime(0);
        if (!lock.tryLock(0))
            continue; // a running instance's
        const std::optional<RecoverablePlan> found = readSlot(slot);
        if (!found) {
            if (QFileInfo::exists(scenarioFile(slot)) || QFileInfo::exists(planFile(slot))) {
                QFile::remove(scenarioFile(slot));
                QFile::remove(planFile(slot));
            }
            continue;
        }
        if (!newest || found->savedAt > newest->savedAt)
            newest = found;
    }
    return newest;
}

void removeRecoverablePlan(const RecoverablePlan& plan) {
    QFile::remove(scenarioFile(plan.slot));
    QFile::remove(planFile(plan.slot));
    QFile::remove(lockFile(plan.slot));
    QDir().rmdir(plan.slot);
}

QString autosaveDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/autosave");
}

} // namespace shardscope::ui
