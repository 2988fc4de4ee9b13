#pragma once
// Crash recovery of edited plans. While the plan has unsaved edits, a copy of it, and of how to load
// its model and cluster, goes to this instance's slot of the autosave directory a moment after each
// edit. Saving the plan, or dropping the edits on purpose, removes the copy; a crash leaves it, and
// the next start offers it back (findRecoverablePlan). Each running instance holds its slot with a
// lock file, so instances never write or recover each other's copies.

#include "engine/io/scenario.h"

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>

namespace shardscope::ui {

class Session;

/// A copy of unsaved edits left by an instance that has ended.
struct RecoverablePlan {
    QString slot;            ///< the slot directory holding it
    ScenarioRequest request; ///< loads its model and cluster with the copy as the plan
    QString originalPlan;    ///< the file the plan was opened from or last saved to, or empty
    QDateTime savedAt;       ///< when the copy was written
    QString description;     ///< what it is: "gpt2-small on dgx-a100"
};

/// Keeps the autosaved copy of one session's plan.
class Autosave final : public QObject {
    Q_OBJECT
public:
    /// Follows `session`, keeping its copies in a free slot of `directory` (created when missing),
    /// written `delayMs` after the last edit.
    Autosave(Session* session, const QString& directory, int delayMs = 2000, QObject* parent = nullptr);
    /// Releases the slot; a copy of unsaved edits stays there for the next start.
    ~Autosave() override;

    /// Writes the copy now if the plan has unsaved edits, else removes it. Returns an error or empty.
    QString writeNow();
    /// Removes the copy: the edits were saved or dropped on purpose.
    void discard();
    /// This instance's slot directory, or empty when none could be taken.
    QString slot() const { return slot_; }
    /// Moves `plan`'s files into this slot (so they stay recoverable until the reopened plan is
    /// saved or dropped) and returns the request that opens them from here.
    ScenarioRequest adopt(const RecoverablePlan& plan);

signals:
    /// A copy could not be written; `message` names the file and the reason.
    void failed(const QString& message);

private:
    void edited();

    Session* session_;
    QString slot_;
    std::unique_ptr<QLockFile> lock_;
    QTimer timer_;
};

/// The newest copy in `directory` whose instance has ended, or nullopt. Slots whose files do not
/// parse are removed.
std::optional<RecoverablePlan> findRecoverablePlan(const QString& directory);
/// Deletes a copy left by an ended instance (the user declined it).
void removeRecoverablePlan(const RecoverablePlan& plan);
/// The autosave directory of this user: AppLocalDataLocation/autosave.
QString autosaveDirectory();

} // namespace shardscope::ui
