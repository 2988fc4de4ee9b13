#include "recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace shardscope::ui {

namespace {
const QString kKey = QStringLiteral("recent/files");
} // namespace

QStringList RecentFiles::list() const { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = list();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > limit())
        files.removeLast();
    QSettings().setValue(kKey, files);
}

void RecentFiles::clear() { QSettings().remove(kKey); }

} // namespace shardscope::ui
