// ResNet-50 style bottleneck network (v1.5: the stride sits on the 3x3 convolution).

#include "engine/builders/builders.h"
#include "engine/builders/conv_parts.h"

namespace shardscope {

namespace {

using I = std::int64_t;

using conv::Feature;
using conv::batchNorm;
using conv::relu;

Feature conv2d(GraphBuilder& gb, const Feature& x, I out, I kernel, I stride, const std::string& name,
              const std::string& block, I n) {
    return conv::conv(gb, x, out, kernel, kernel, stride, name, block, n);
}

Feature bottleneck(GraphBuilder& gb, const Feature& x, I width, I stride, const std::string& block, I n) {
    Feature y = relu(gb, batchNorm(gb, conv2d(gb, x, width, 1, 1, block + ".conv1", block, n), block + ".bn1", block, n),
                     block + ".relu1", block, n);
    y = relu(gb, batchNorm(gb, conv2d(gb, y, width, 3, stride, block + ".conv2", block, n), block + ".bn2", block, n),
             block + ".relu2", block, n);
    y = batchNorm(gb, conv2d(gb, y, 4 * width, 1, 1, block + ".conv3", block, n), block + ".bn3", block, n);
    Feature shortcut = x;
    if (stride != 1 || x.c != 4 * width)
        shortcut = batchNorm(gb, conv2d(gb, x, 4 * width, 1, stride, block + ".downsample", block, n),
                             block + ".downsample_bn", block, n);
    const TensorId sum = gb.op(block + ".add", OpKind::Add, "([n,c,P,Q],[n,c,P,Q])->([n,c,P,Q])", {y.t, shortcut.t},
                               {n, y.c, y.size, y.size}, block, OpHints{"n", "c", "", ""});
    return relu(gb, {sum, y.c, y.size}, block + ".relu3", block, n);
}

} // namespace

Graph buildResnet(const ModelParams& p, int microBatch, const std::string& name) {
    const I n = microBatch;
    GraphBuilder gb(name, p.dtype);
    auto [x, labels] = conv::imageInputs(gb, p.image, n);
    x = relu(gb, batchNorm(gb, conv2d(gb, x, 64, 7, 2, "stem.conv", "stem", n), "stem.bn", "stem", n), "stem.relu",
             "stem", n);
    x = conv::pool(gb, x, 2, "stem.pool", "stem", n);
    const int blocks[4] = {3, 4, 6, 3};
    const I widths[4] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; ++stage)
        for (int i = 0; i < blocks[stage]; ++i)
            x = bottleneck(gb, x, widths[stage], (stage > 0 && i == 0) ? 2 : 1,
                           "layer" + std::to_string(stage + 1) + "." + std::to_string(i), n);
    conv::classifier(gb, x, p.classes, labels, n);
    return gb.finish();
}

} // namespace shardscope
