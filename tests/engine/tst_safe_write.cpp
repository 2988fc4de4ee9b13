// Saving without losing anything (engine/io/safe_write): a new file takes the umask's mode, an
// overwritten one keeps its mode and its hard links, a symlinked target is written through and stays
// a link, a planted temporary name is never followed, devices and directories are refused and left
// alone.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/io/json_fields.h"
#include "engine/io/safe_write.h"
#include "engine/util/error.h"

#include <QTemporaryDir>

#include <filesystem>
#include <sys/stat.h>

using namespace shardscope;
namespace fs = std::filesystem;

namespace {

mode_t modeOf(const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mode & 07777;
}

bool refused(const std::string& path, const char* reason) {
    try {
        writeFileAtomically(path, "new");
    } catch (const InputError& e) {
        return std::string(e.what()).find(reason) != std::string::npos;
    }
    return false;
}

} // namespace

class TestSafeWrite : public QObject {
    Q_OBJECT
private slots:
    void newFilesTakeTheUmasksMode() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("a.plan.json")).toStdString();
        const mode_t old = ::umask(027);
        writeFileAtomically(path, "hello");
        ::umask(old);
        QCOMPARE(readTextFile(path), std::string("hello"));
        QCOMPARE(modeOf(path), mode_t(0640)); // 0666 less 027
    }

    void overwritingKeepsTheMode() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("secret.plan.json")).toStdString();
        writeFileAtomically(path, "one");
        ::chmod(path.c_str(), 0600);
        writeFileAtomically(path, "two");
        QCOMPARE(readTextFile(path), std::string("two"));
        QCOMPARE(modeOf(path), mode_t(0600));
        int files = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path().toStdString()))
            ++files;
        QCOMPARE(files, 1); // no temporary file left behind
    }

    void aSymlinkedTargetIsWrittenThrough() {
        QTemporaryDir dir;
        const std::string real = dir.filePath(QStringLiteral("real.json")).toStdString();
        const std::string link = dir.filePath(QStringLiteral("link.json")).toStdString();
        writeFileAtomically(real, "old");
        fs::create_symlink("real.json", link);
        writeFileAtomically(link, "new");
        QVERIFY(fs::is_symlink(fs::symlink_status(link)));
        QCOMPARE(readTextFile(real), std::string("new"));
    }

    void aPlantedTemporaryNameIsNotFollowed() {
        // The old writer used PATH.tmp: a symlink planted there made it overwrite the symlink's target.
        QTemporaryDir dir;
        const std::string victim = dir.filePath(QStringLiteral("victim")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("plan.json")).toStdString();
        writeFileAtomically(victim, "precious");
        fs::create_symlink(victim, path + ".tmp");
        writeFileAtomically(path, "plan");
        QCOMPARE(readTextFile(victim), std::string("precious"));
        QCOMPARE(readTextFile(path), std::string("plan"));
    }

    void hardLinksSeeTheNewText() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("plan.json")).toStdString();
        const std::string other = dir.filePath(QStringLiteral("other-name.json")).toStdString();
        writeFileAtomically(path, "old");
        ::chmod(path.c_str(), 0600);
        fs::create_hard_link(path, other);
        writeFileAtomically(path, "new text");
        QCOMPARE(readTextFile(other), std::string("new text"));
        QCOMPARE(fs::hard_link_count(path), std::uintmax_t(2));
        QCOMPARE(modeOf(path), mode_t(0600));
        int files = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path().toStdString()))
            ++files;
        QCOMPARE(files, 2); // the temporary copy is gone
    }

    void devicesAndDirectoriesAreRefusedAndLeftAlone() {
        QVERIFY(refused("/dev/full", "not a regular file"));
        QVERIFY(fs::is_character_file("/dev/full"));
        QTemporaryDir dir;
        QVERIFY(refused(dir.path().toStdString(), "not a regular file"));
        QVERIFY(refused(dir.filePath(QStringLiteral("missing/x.json")).toStdString(), "cannot create a file in its directory"));
        QVERIFY(refused("", "empty name"));
    }
};

QTEST_GUILESS_MAIN(TestSafeWrite)
#include "tst_safe_write.moc"
