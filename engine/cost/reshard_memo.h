#pragma once
// Resharding times remembered within one cost model. Pricing a graph's edge tables asks for the same
// resharding of the same tensor size again and again: every edge carrying a [b, s, h] activation,
// between every pair of distinct ends (mixtral-8x7b on 8 H100 nodes: 4.8 M pricings in one search, a
// third of them distinct).

#include "engine/cost/cost_terms.h"
#include "engine/sharding/strategy.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace shardscope {

/// Seconds of one tensor's resharding per step, by (bytes, from, to); for one cost model only (its
/// mesh, links and micro-batch count). Shardings are packed into one word each (others are priced
/// every time) and numbered in the order they are first seen; each tensor size keeps a table indexed
/// by the two numbers, so a lookup is two array reads.
class ReshardMemo {
public:
    /// A sharding packed into one word, when it fits (up to 6 dimensions over 8 mesh axes).
    static std::optional<std::uint64_t> word(const TensorSharding& t);
    /// The number of a packed sharding: the same word always gets the same number.
    int id(std::uint64_t word);

    /// The times of the reshardings of one tensor size, by the numbers of their two shardings.
    class Sized {
    public:
        /// The time of resharding between the shardings numbered `from` and `to`: remembered, or priced
        /// by `price()` and remembered.
        template <class Price>
        ReshardTime time(int from, int to, Price price) {
            if (rows_.size() <= std::size_t(from))
                rows_.resize(std::size_t(from) + 1);
            std::vector<ReshardTime>& row = rows_[std::size_t(from)];
            if (row.size() <= std::size_t(to))
                row.resize(std::size_t(to) + 1, ReshardTime{kUnpriced, 0});
            ReshardTime& slot = row[std::size_t(to)];
            if (std::isnan(slot.seconds))
                slot = price();
            return slot;
        }

    private:
        static constexpr double kUnpriced = std::numeric_limits<double>::quiet_NaN();
        std::vector<std::vector<ReshardTime>> rows_;
    };
    /// The table of reshardings of `bytes`-byte tensors (stays where it is while the memo lives).
    Sized& sized(double bytes) { return sizes_[bytes]; }

private:
    std::unordered_map<std::uint64_t, int> ids_;
    std::map<double, Sized> sizes_;
};

} // namespace shardscope
