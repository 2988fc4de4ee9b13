#pragma once
// Resharding times remembered within one cost model. Pricing a graph's edge tables asks for the same
// resharding of the same tensor size again and again: every edge carrying a [b, s, h] activation,
// between every pair of distinct ends (mixtral-8x7b on 8 H100 nodes: 4.8 M pricings in one search, a
// third of them distinct).

#include "engine/cost/cost_terms.h"
#include "engine/sharding/strategy.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace shardscope {

/// Seconds of one tensor's resharding per step, by (bytes, from, to); for one cost model only (its
/// mesh, links and micro-batch count). Shardings are packed into one word each (others are priced
/// every time), and the words kept in an open-addressing table.
class ReshardMemo {
public:
    /// A sharding packed into one word, when it fits (up to 6 dimensions over 8 mesh axes).
    static std::optional<std::uint64_t> word(const TensorSharding& t);
    /// The time of resharding `bytes` between two packed shardings: remembered, or priced by
    /// `price()` and remembered.
    template <class Price>
    ReshardTime time(double bytes, std::uint64_t from, std::uint64_t to, Price price) {
        Slot& slot = slotOf(Key{bytes, from, to});
        if (!slot.used) {
            slot.time = price();
            slot.used = true;
            ++used_;
        }
        return slot.time;
    }

private:
    struct Key {
        double bytes = 0;
        std::uint64_t from = 0, to = 0;
        bool operator==(const Key&) const = default;
    };
    struct Slot {
        Key key;
        ReshardTime time;
        bool used = false;
    };
    /// The slot holding `key`, or the free one where it goes, with its key set (the table grows at
    /// half full).
    Slot& slotOf(const Key& key);
    std::vector<Slot> slots_;
    std::size_t used_ = 0;
};

} // namespace shardscope
