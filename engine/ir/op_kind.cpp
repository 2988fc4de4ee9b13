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
// flops/element, stats/row, saves inputs, saves output
constexpr std::array<KindEntry, 22> kKinds{{
    {OpKind::MatMul, "matmul", {C::Contraction, 0, 0, true, false}},
    {OpKind::Conv2d, "conv2d", {C::Contraction, 0, 0, true, false}},
    {OpKind::Embedding, "embedding", {C::Lookup, 0, 0, true, false}},
    {OpKind::Add, "add", {C::Elementwise, 1, 0, false, false}},
    {OpKind::Mul, "mul", {C::Elementwise, 1, 0, true, false}},
    {OpKind::Gelu, "gelu", {C::Elementwise, 8, 0, true, false}},
    {OpKind::Relu, "relu", {C::Elementwise, 1, 0, true, false}},
    {OpKind::Silu, "silu", {C::Elementwise, 4, 0, true, false}},
    {OpKind::SwiGlu, "swiglu", {C::Elementwise, 5, 0, true, false}},
    {OpKind::LayerNorm, "layernorm", {C::Normalization, 8, 2, true, false}},
    {OpKind::RmsNorm, "rmsnorm", {C::Normalization, 4, 1, true, false}},
    {OpKind::BatchNorm, "batchnorm", {C::Normalization, 8, 0, true, false}},
    {OpKind::Softmax, "softmax", {C::Normalization, 5, 2, false, true}},
    {OpKind::CrossEntropy, "cross_entropy", {C::Loss, 5, 2, true, false}},
    {OpKind::MseLoss, "mse_loss", {C::Loss, 3, 1, true, false}},
    {OpKind::Reshape, "reshape", {C::Layout, 0, 0, false, false}},
    {OpKind::Transpose, "transpose", {C::Layout, 0, 0, false, false}},
    {OpKind::Slice, "slice", {C::Layout, 0, 0, false, false}},
    {OpKind::Concat, "concat", {C::Layout, 0, 0, false, false}},
    {OpKind::Pool, "pool", {C::Elementwise, 1, 0, true, false}},
    {OpKind::Dispatch, "dispatch", {C::Movement, 0, 0, true, false}},
    {OpKind::Combine, "combine", {C::Movement, 2, 0, true, false}},
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
