#include "engine/cost/attention_head_rate.h"

#include <cmath>

namespace shardscope {

double attentionHeadDimRate(std::int64_t headDim) {
    if (headDim <= 0 || headDim >= 128)
        return 1.0;
    return std::pow(double(headDim) / 128.0, 0.71);
}

} // namespace shardscope
