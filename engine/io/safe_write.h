#pragma once
// Saving a file so that nothing is lost: the text goes to a new temporary file in the target's
// directory (created exclusively: a planted file or symlink of that name is never followed), is
// flushed to disk, takes the original's permissions, and replaces the target in one rename. A target
// that is a symlink is written through to the file it names; a target that is not a regular file (a
// device such as /dev/full, a directory) is refused; any write error leaves the original as it was.
// A target with other hard links is rewritten in place from the complete temporary copy instead, so
// every name sees the new text (should that fail half-way, the message names the copy).

#include <string>

namespace shardscope {

/// Writes `text` to `path` as described above. Throws InputError naming the path and the reason.
void writeFileAtomically(const std::string& path, const std::string& text);

} // namespace shardscope
