// ResNet-50 style bottleneck network (v1.5: the stride sits on the 3x3 convolution).

#include "engine/builders/builders.h"
#include "engine/builders/graph_builder.h"
#include "engine/util/error.h"

namespace shardscope {

namespace {

using I = std::int64_t;

/// A feature map: tensor, channels and spatial size.
struct Feature {
    TensorId t;
    I c;
    I size;
};

/// Convolution `kernel` x `kernel`, `stride`, "same" padding. A strided output position P maps to the
/// input dimension (P, z) with z = stride, so a split of P is a contiguous split of the input rows.
Feature conv(GraphBuilder& gb, const Feature& x, I out, I kernel, I stride, const std::string& name,
             const std::string& block, I n) {
    const TensorId w = gb.param(name + ".weight", {out, x.c, kernel, kernel});
    const I size = x.size / stride;
    const std::string rule = stride == 1
                                 ? "([n,c,P,Q],[k,c,r,w])->([n,k,P,Q]) {r:fixed,w:fixed,P:halo,Q:halo}"
                                 : "([n,c,(P,z),(Q,y)],[k,c,r,w])->([n,k,P,Q]) "
                                   "{z:fixed,y:fixed,r:fixed,w:fixed,P:halo,Q:halo}";
    const TensorId t = gb.op(name, OpKind::Conv2d, rule, {x.t, w}, {n, out, size, size}, block, OpHints{"n", "k", "", ""});
    gb.producerOf(t).flops = 2.0 * double(n) * double(out) * double(size) * double(size) * double(x.c) *
                             double(kernel) * double(kernel);
    return {t, out, size};
}

Feature batchNorm(GraphBuilder& gb, const Feature& x, const std::string& name, const std::string& block, I n) {
    const TensorId w = gb.param(name + ".weight", {x.c});
    const TensorId b = gb.param(name + ".bias", {x.c});
    // Statistics per device, as frameworks do by default: the batch and spatial factors stay parallel.
    const TensorId t = gb.op(name, OpKind::BatchNorm, "([n,c,P,Q],[c],[c])->([n,c,P,Q])", {x.t, w, b},
                             {n, x.c, x.size, x.size}, block, OpHints{"n", "c", "", ""});
    return {t, x.c, x.size};
}

Feature relu(GraphBuilder& gb, const Feature& x, const std::string& name, const std::string& block, I n) {
    const TensorId t = gb.op(name, OpKind::Relu, "([n,c,P,Q])->([n,c,P,Q])", {x.t}, {n, x.c, x.size, x.size}, block,
                             OpHints{"n", "c", "", ""});
    return {t, x.c, x.size};
}

Feature bottleneck(GraphBuilder& gb, const Feature& x, I width, I stride, const std::string& block, I n) {
    Feature y = relu(gb, batchNorm(gb, conv(gb, x, width, 1, 1, block + ".conv1", block, n), block + ".bn1", block, n),
                     block + ".relu1", block, n);
    y = relu(gb, batchNorm(gb, conv(gb, y, width, 3, stride, block + ".conv2", block, n), block + ".bn2", block, n),
             block + ".relu2", block, n);
    y = batchNorm(gb, conv(gb, y, 4 * width, 1, 1, block + ".conv3", block, n), block + ".bn3", block, n);
    Feature shortcut = x;
    if (stride != 1 || x.c != 4 * width)
        shortcut = batchNorm(gb, conv(gb, x, 4 * width, 1, stride, block + ".downsample", block, n),
                             block + ".downsample_bn", block, n);
    const TensorId sum = gb.op(block + ".add", OpKind::Add, "([n,c,P,Q],[n,c,P,Q])->([n,c,P,Q])", {y.t, shortcut.t},
                               {n, y.c, y.size, y.size}, block, OpHints{"n", "c", "", ""});
    return relu(gb, {sum, y.c, y.size}, block + ".relu3", block, n);
}

} // namespace

Graph buildResnet(const ModelParams& p, int microBatch, const std::string& name) {
    if (p.image % 32 != 0)
        throw InputError("model parameters: image=" + std::to_string(p.image) + " must be a multiple of 32");
    const I n = microBatch;
    GraphBuilder gb(name, p.dtype);
    Feature x{gb.input("images", {n, 3, p.image, p.image}, p.dtype), 3, p.image};
    const TensorId labels = gb.input("labels", {n}, DType::INT32);
    x = relu(gb, batchNorm(gb, conv(gb, x, 64, 7, 2, "stem.conv", "stem", n), "stem.bn", "stem", n), "stem.relu",
             "stem", n);
    const TensorId pooled = gb.op("stem.pool", OpKind::Pool, "([n,c,(P,z),(Q,y)])->([n,c,P,Q]) {z:fixed,y:fixed,P:halo,Q:halo}",
                                  {x.t}, {n, 64, x.size / 2, x.size / 2}, "stem", OpHints{"n", "c", "", ""});
    x = {pooled, 64, x.size / 2};
    const int blocks[4] = {3, 4, 6, 3};
    const I widths[4] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; ++stage)
        for (int i = 0; i < blocks[stage]; ++i)
            x = bottleneck(gb, x, widths[stage], (stage > 0 && i == 0) ? 2 : 1,
                           "layer" + std::to_string(stage + 1) + "." + std::to_string(i), n);
    const TensorId avg = gb.op("head.avgpool", OpKind::Pool, "([n,c,P,Q])->([n,c])", {x.t}, {n, x.c}, "head",
                               OpHints{"n", "c", "", ""});
    const TensorId wfc = gb.param("head.fc.weight", {x.c, p.classes});
    const TensorId logits = gb.op("head.fc", OpKind::MatMul, "([n,c],[c,k])->([n,k])", {avg, wfc}, {n, p.classes},
                                  "head", OpHints{"n", "k", "", ""});
    gb.op("loss", OpKind::CrossEntropy, "([n,k],[n])->([n]) {k:local}", {logits, labels}, {n}, "head",
          OpHints{"n", "k", "", ""});
    return gb.finish();
}

} // namespace shardscope
