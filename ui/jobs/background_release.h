#pragma once
// Dropping a large result (a simulated step of a pipelined plan holds millions of events) frees its
// memory on whichever thread holds the last reference: on the UI thread that stalls the window for
// seconds. releaseInBackground() hands the reference to a pooled thread instead.

#include <QThreadPool>

#include <memory>
#include <utility>

namespace shardscope::ui {

/// Drops `held` on a pooled thread: if it was the last reference, the object is destroyed there.
template <typename T> void releaseInBackground(std::shared_ptr<T> held) {
    if (!held)
        return;
    QThreadPool::globalInstance()->start([held = std::move(held)]() mutable { held.reset(); });
}

} // namespace shardscope::ui
