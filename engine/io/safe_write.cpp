#include "engine/io/safe_write.h"

#include "engine/util/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace shardscope {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw InputError(path + ": " + why); }

/// The file `path` names: itself, or for a symlink the file at the end of its chain.
fs::path resolveTarget(const std::string& path) {
    std::error_code ec;
    fs::path p(path);
    for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
        if (hops > 40)
            fail(path, "too many levels of symbolic links");
        const fs::path next = fs::read_symlink(p, ec);
        if (ec)
            fail(path, "cannot read the symbolic link");
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    return p;
}

/// Copies file `from` over the contents of `to` (same inode: its hard links see the new text), then
/// flushes it. Returns 0 or the errno of the failure.
int copyInPlace(const std::string& from, const fs::path& to) {
    const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno;
    const int out = ::open(to.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (out < 0) {
        const int code = errno;
        ::close(in);
        return code;
    }
    char buffer[1 << 16];
    int code = 0;
    for (;;) {
        const ssize_t n = ::read(in, buffer, sizeof buffer);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            code = errno;
            break;
        }
        for (ssize_t done = 0; done < n && !code;) {
            const ssize_t w = ::write(out, buffer + done, std::size_t(n - done));
            if (w < 0 && errno != EINTR)
                code = errno;
            else if (w > 0)
                done += w;
        }
        if (code)
            break;
    }
    if (!code && ::fsync(out) != 0)
        code = errno;
    if (::close(out) != 0 && !code)
        code = errno;
    ::close(in);
    return code;
}

/// Permissions for a new file: 0666 less the process's umask (what fopen would give it).
mode_t newFileMode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

} // namespace

void writeFileAtomically(const std::string& path, const std::string& text) {
    if (path.empty())
        throw InputError("cannot write a file with an empty name");
    const fs::path target = resolveTarget(path);
    struct stat existing {};
    const bool exists = ::stat(target.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode))
        fail(path, "not a regular file (a directory, device or pipe); choose a file name");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0)
        fail(path, std::string("cannot create a file in its directory (") + std::strerror(errno) + ")");
    std::size_t done = 0;
    int error = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = errno;
            break;
        }
        done += std::size_t(n);
    }
    if (!error && ::fchmod(fd, exists ? (existing.st_mode & 07777) : newFileMode()) != 0)
        error = errno;
    if (!error && ::fsync(fd) != 0)
        error = errno;
    if (::close(fd) != 0 && !error)
        error = errno;
    if (error) {
        ::unlink(tmp.c_str());
        fail(path, std::string("writing failed (") + std::strerror(error) + "); the original is unchanged");
    }
    if (exists && existing.st_nlink > 1) {
        // Other names link to this file: a rename would leave them on the old text. Write it in place
        // from the complete copy; should that fail half-way, the copy stays and the message names it.
        if (const int code = copyInPlace(tmp, target); code != 0)
            fail(path, std::string("writing in place failed (") + std::strerror(code) + "); the new text is in " + tmp);
        ::unlink(tmp.c_str());
        return;
    }
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        error = errno;
        ::unlink(tmp.c_str());
        fail(path, std::string("writing failed (") + std::strerror(error) + "); the original is unchanged");
    }
}

} // namespace shardscope
