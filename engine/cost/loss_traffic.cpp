#include "engine/cost/loss_traffic.h"

namespace shardscope {

LossTraffic crossEntropyTraffic(DType logits, LossKernel kernel) {
    const double in = dtypeBytes(logits);
    LossTraffic t;
    if (kernel == LossKernel::Fused) {
        t.forward = in + (in + in);
        t.backward = in + in;
        return t;
    }
    constexpr double f32 = 4;
    t.forward = (in + f32) + f32 + 2 * f32 + 2 * f32 + f32 + 2 * f32;
    t.backward = 2 * f32 + (f32 + in);
    t.workspace = f32;
    return t;
}

} // namespace shardscope
