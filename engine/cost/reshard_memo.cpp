#include "engine/cost/reshard_memo.h"

#include <algorithm>
#include <bit>

namespace shardscope {

namespace {

std::uint64_t hashOf(double bytes, std::uint64_t from, std::uint64_t to) {
    std::uint64_t h = std::bit_cast<std::uint64_t>(bytes) * 0x9e3779b97f4a7c15ULL;
    h ^= std::rotl(from * 0xc2b2ae3d27d4eb4fULL, 21) ^ std::rotl(to * 0x165667b19e3779f9ULL, 43);
    return h ^ (h >> 29);
}

} // namespace

std::optional<std::uint64_t> ReshardMemo::word(const TensorSharding& t) {
    // [rank | partial | d5 .. d0], one byte each.
    if (t.dims.size() > 6 || t.partial > 0xff)
        return std::nullopt;
    std::uint64_t word = std::uint64_t(t.dims.size()) << 56 | std::uint64_t(t.partial) << 48;
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
        if (t.dims[d] > 0xff)
            return std::nullopt;
        word |= std::uint64_t(t.dims[d]) << (8 * d);
    }
    return word;
}

ReshardMemo::Slot& ReshardMemo::slotOf(const Key& key) {
    if (2 * (used_ + 1) > slots_.size()) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(std::max<std::size_t>(1024, 2 * old.size()), Slot{});
        used_ = 0;
        for (const Slot& s : old)
            if (s.used) {
                slotOf(s.key) = s;
                ++used_;
            }
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hashOf(key.bytes, key.from, key.to) & mask;; i = (i + 1) & mask)
        if (!slots_[i].used || slots_[i].key == key) {
            slots_[i].key = key;
            return slots_[i];
        }
}

} // namespace shardscope
