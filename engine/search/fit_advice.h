#pragma once
// What would fit when nothing does: the smallest change of one kind — a ZeRO stage, recomputation,
// more micro-batches, more nodes — under which a named baseline fits, with its figures.

#include "engine/search/graph_family.h"
#include "engine/search/search.h"

#include <string>
#include <vector>

namespace shardscope {

/// One line per kind of change the user has not left open, e.g. "ZeRO stage 3: megatron-sp+zero3 on
/// data=8,model=8 fits: 12.300 s per step, peak 71.2 GB of 80 GB"; more nodes are always tried (up to
/// 64x). Says so when no change of up to those sizes fits.
std::vector<std::string> fitAdvice(const SearchRequest& request, const OpenSettings& open, GraphCache& graphs);

} // namespace shardscope
