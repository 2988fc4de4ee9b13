#include "engine/ir/op_kind.h"

#include <array>

namespace shardscope {

namespace {

struct KindEntry {
    OpKind kind;
    std::string_view name;
    OpKindTraits traits;
};

using C = OpCategory;
// flops/element, stats/row, saves inputs, saves output, mask bytes per element
constexpr std::array<KindEntry, 24> kKinds{{
    {OpKind::MatMul, "matmul", {C::Contraction, 0, 0, true, false, 0}},
    {OpKind::Conv2d, "conv2d", {C::Contraction, 0, 0, true, false, 0}},
    {OpKind::Embedding, "embedding", {C::Lookup, 0, 0, true, false, 0}},
    {OpKind::Add, "add", {C::Elementwise, 1, 0, false, false, 0}},
    {OpKind::Mul, "mul", {C::Elementwise, 1, 0, true, false, 0}},
    {OpKind::Gelu, "gelu", {C::Elementwise, 8, 0, true, false, 0}},
    {OpKind::Relu, "relu", {C::Elementwise, 1, 0, true, false, 0}},
    {OpKind::Silu, "silu", {C::Elementwise, 4, 0, true, false, 0}},
    {OpKind::SwiGlu, "swiglu", {C::Elementwise, 5, 0, true, false, 0}},
    {OpKind::LayerNorm, "layernorm", {C::Normalization, 8, 2, true, false, 0}},
    {OpKind::RmsNorm, "rmsnorm", {C::Normalization, 4, 1, true, false, 0}},
    {OpKind::BatchNorm, "batchnorm", {C::Normalization, 8, 0, true, false, 0}},
    {OpKind::Softmax, "softmax", {C::Normalization, 5, 2, false, true, 0}},
    {OpKind::CrossEntropy, "cross_entropy", {C::Loss, 5, 2, true, false, 0}},
    {OpKind::MseLoss, "mse_loss", {C::Loss, 3, 1, true, false, 0}},
    {OpKind::Reshape, "reshape", {C::Layout, 0, 0, false, false, 0}},
    {OpKind::Transpose, "transpose", {C::Layout, 0, 0, false, false, 0}},
    {OpKind::Slice, "slice", {C::Layout, 0, 0, false, false, 0}},
    {OpKind::Concat, "concat", {C::Layout, 0, 0, false, false, 0}},
    {OpKind::Pool, "pool", {C::Elementwise, 1, 0, true, false, 0}},
    {OpKind::Dispatch, "dispatch", {C::Movement, 0, 0, true, false, 0}},
    {OpKind::Combine, "combine", {C::Movement, 2, 0, true, false, 0}},
    {OpKind::Dropout, "dropout", {C::Elementwise, 2, 0, false, false, 1}},
    {OpKind::Opaque, "opaque", {C::Elementwise, 0, 0, true, false, 0}},
}};

} // namespace

std::string_view opKindName(OpKind k) {
    for (const auto& e : kKinds)
        if (e.kind == k)
            return e.name;
    return "matmul";
}

std::optional<OpKind> parseOpKind(std::string_view name) {
    for (const auto& e : kKinds)
        if (e.name == name)
            return e.kind;
    return std::nullopt;
}

std::vector<std::string_view> opKindNames() {
    std::vector<std::string_view> names;
    for (const auto& e : kKinds)
        names.push_back(e.name);
    return names;
}

const OpKindTraits& opKindTraits(OpKind k) {
    for (const auto& e : kKinds)
        if (e.kind == k)
            return e.traits;
    return kKinds[0].traits;
}

} // namespace shardscope
