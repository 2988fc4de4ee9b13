#include "engine/cost/reshard_memo.h"

namespace shardscope {

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

int ReshardMemo::id(std::uint64_t word) {
    return ids_.try_emplace(word, static_cast<int>(ids_.size())).first->second;
}

} // namespace shardscope
