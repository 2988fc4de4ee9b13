#pragma once
// The most recently opened files, kept in QSettings.

#include <QStringList>

namespace shardscope::ui {

class RecentFiles {
public:
    /// Most recent first, at most `limit()` paths.
    QStringList list() const;
    /// Puts `path` (made absolute) first.
    void add(const QString& path);
    /// Forgets every file.
    void clear();
    /// How many paths are kept.
    static int limit() { return 10; }
};

} // namespace shardscope::ui
