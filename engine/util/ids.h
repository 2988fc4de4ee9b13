#pragma once
// Strong index types for ops, tensors and mesh axes, so an op id is never passed as a tensor id.

#include <compare>
#include <cstdint>
#include <functional>

namespace shardscope {

/// A typed index. `Tag` only distinguishes the kinds; `value` is the position in its container.
template <typename Tag> struct Index {
    std::int32_t value = -1;

    constexpr Index() = default;
    /// Wraps the raw position `v`.
    constexpr explicit Index(std::int32_t v) : value(v) {}
    /// Wraps a container size or position given as size_t.
    constexpr explicit Index(std::size_t v) : value(static_cast<std::int32_t>(v)) {}

    /// True when the index points somewhere (default-constructed indices do not).
    constexpr bool valid() const { return value >= 0; }
    /// The position as size_t, for container access.
    constexpr std::size_t index() const { return static_cast<std::size_t>(value); }

    auto operator<=>(const Index&) const = default;
};

struct OpTag;
struct TensorTag;
struct AxisTag;

using OpId = Index<OpTag>;
using TensorId = Index<TensorTag>;
using AxisId = Index<AxisTag>;

} // namespace shardscope

template <typename Tag> struct std::hash<shardscope::Index<Tag>> {
    std::size_t operator()(const shardscope::Index<Tag>& i) const noexcept { return std::hash<int>()(i.value); }
};
