#pragma once
// Tests build graphs, clusters and cost models as locals; the engine's requests and search tables
// share theirs. A shared copy bridges the two.

#include <memory>

namespace shardscope {

/// A shared, immutable copy of `value`.
template <typename T> std::shared_ptr<const T> sharedCopy(const T& value) { return std::make_shared<const T>(value); }

} // namespace shardscope
