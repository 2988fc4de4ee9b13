#pragma once
// One table per enum mapping values to their file names, so name() and parse() are written once.

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

/// A fixed table of (value, name) pairs. Example:
///   constexpr EnumNames<Phase, 2> kPhases{{{{Phase::Forward, "forward"}, {Phase::Backward, "backward"}}}};
///   kPhases.name(Phase::Forward) == "forward"; kPhases.parse("backward") == Phase::Backward.
template <typename E, std::size_t N> struct EnumNames {
    std::array<std::pair<E, std::string_view>, N> items;

    /// The name of `value`; "?" if the table lacks it.
    constexpr std::string_view name(E value) const {
        for (const auto& [v, n] : items)
            if (v == value)
                return n;
        return "?";
    }
    /// Every name, in table order.
    std::vector<std::string_view> names() const {
        std::vector<std::string_view> out;
        for (const auto& item : items)
            out.push_back(item.second);
        return out;
    }
    /// The value called `text`; nullopt if none is.
    constexpr std::optional<E> parse(std::string_view text) const {
        for (const auto& [v, n] : items)
            if (n == text)
                return v;
        return std::nullopt;
    }
};

} // namespace shardscope
