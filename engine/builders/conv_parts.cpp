#include "engine/builders/conv_parts.h"

#include "engine/util/error.h"

namespace shardscope::conv {

using I = std::int64_t;

std::pair<Feature, TensorId> imageInputs(GraphBuilder& gb, I image, I n) {
    if (image % 32 != 0)
        throw InputError("model parameters: image=" + std::to_string(image) + " must be a multiple of 32");
    const Feature images{gb.input("images", {n, 3, image, image}, gb.dtype()), 3, image};
    return {images, gb.input("labels", {n}, DType::INT32)};
}

Feature conv(GraphBuilder& gb, const Feature& x, I out, I kh, I kw, I stride, const std::string& name,
             const std::string& block, I n) {
    const TensorId w = gb.param(name + ".weight", {out, x.c, kh, kw});
    const I size = x.size / stride;
    const std::string rule = stride == 1
                                 ? "([n,c,P,Q],[k,c,r,w])->([n,k,P,Q]) {r:fixed,w:fixed,P:halo,Q:halo}"
                                 : "([n,c,(P,z),(Q,y)],[k,c,r,w])->([n,k,P,Q]) "
                                   "{z:fixed,y:fixed,r:fixed,w:fixed,P:halo,Q:halo}";
    const TensorId t = gb.op(name, OpKind::Conv2d, rule, {x.t, w}, {n, out, size, size}, block, OpHints{"n", "k", "", ""});
    gb.producerOf(t).flops = 2.0 * double(n) * double(out) * double(size) * double(size) * double(x.c) * double(kh) *
                             double(kw);
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

Feature unit(GraphBuilder& gb, const Feature& x, I out, I kh, I kw, I stride, const std::string& name,
             const std::string& block, I n) {
    return relu(gb, batchNorm(gb, conv(gb, x, out, kh, kw, stride, name + ".conv", block, n), name + ".bn", block, n),
                name + ".relu", block, n);
}

Feature pool(GraphBuilder& gb, const Feature& x, I stride, const std::string& name, const std::string& block, I n) {
    const std::string rule = stride == 1 ? "([n,c,P,Q])->([n,c,P,Q]) {P:halo,Q:halo}"
                                         : "([n,c,(P,z),(Q,y)])->([n,c,P,Q]) {z:fixed,y:fixed,P:halo,Q:halo}";
    const TensorId t = gb.op(name, OpKind::Pool, rule, {x.t}, {n, x.c, x.size / stride, x.size / stride}, block,
                             OpHints{"n", "c", "", ""});
    return {t, x.c, x.size / stride};
}

void classifier(GraphBuilder& gb, const Feature& x, I classes, TensorId labels, I n) {
    const TensorId avg = gb.op("head.avgpool", OpKind::Pool, "([n,c,P,Q])->([n,c])", {x.t}, {n, x.c}, "head",
                               OpHints{"n", "c", "", ""});
    const TensorId wfc = gb.param("head.fc.weight", {x.c, classes});
    const TensorId logits = gb.op("head.fc", OpKind::MatMul, "([n,c],[c,k])->([n,k])", {avg, wfc}, {n, classes},
                                  "head", OpHints{"n", "k", "", ""});
    gb.op("loss", OpKind::CrossEntropy, "([n,k],[n])->([n]) {k:local}", {logits, labels}, {n}, "head",
          OpHints{"n", "k", "", ""});
}

} // namespace shardscope::conv
