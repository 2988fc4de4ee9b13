#include "engine/search/folded_run.h"

namespace shardscope {

std::optional<RepeatedBlocks> foldedRun(const RepeatedBlocks& layers, const std::vector<std::optional<StrategyPin>>& pins) {
    auto pinOf = [&](OpId o) { return o.index() < pins.size() ? pins[o.index()] : std::nullopt; };
    // True when every op of block b has the pin of its twin in block a.
    auto samePins = [&](int a, int b) {
        for (std::size_t q = 0; q < layers.blocks[std::size_t(b)].size(); ++q)
            if (pinOf(layers.blocks[std::size_t(b)][q]) != pinOf(layers.blocks[std::size_t(a)][q]))
                return false;
        return true;
    };
    const int L = layers.count();
    int bestFirst = 0, bestCount = 0;
    for (int s = 0; s + 1 < L; ++s) {
        if (pinOf(layers.exit(s)) != pinOf(layers.exit(s + 1)))
            continue;
        int e = s + 2;
        while (e < L && samePins(s + 1, e))
            ++e;
        if (e - s > bestCount) {
            bestFirst = s;
            bestCount = e - s;
        }
        if (e == L)
            break; // a later start only runs shorter
    }
    if (bestCount < 2)
        return std::nullopt;
    if (bestFirst == 0 && bestCount == L)
        return layers;
    return layers.run(bestFirst, bestCount);
}

} // namespace shardscope
