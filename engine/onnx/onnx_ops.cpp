#include "engine/onnx/onnx_ops.h"

#include "engine/onnx/onnx_rule_builder.h"
#include "engine/onnx/onnx_shape_ops.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace shardscope::onnx_import {

namespace {

/// `in` aligned right against output factors `d` (NumPy broadcasting): equal sizes share the
/// factor, a broadcast size-1 dimension gets its own. Nullopt when the shapes do not broadcast.
std::optional<Dims> broadcastDims(RuleBuilder& rb, const std::vector<I>& in, const std::vector<int>& d,
                                  const std::vector<I>& outShape) {
    Dims dims;
    const I offset = I(outShape.size()) - I(in.size());
    for (I i = 0; i < I(in.size()); ++i) {
        const I j = i + offset;
        if (j >= 0 && in[std::size_t(i)] == outShape[std::size_t(j)])
            dims.push_back({d[std::size_t(j)]});
        else if (in[std::size_t(i)] == 1)
            dims.push_back({rb.factor("u", 1, FactorType::Fixed)});
        else
            return std::nullopt;
    }
    return dims;
}

std::optional<MappedOp> elementwise(const MapContext& c, OpKind kind, std::set<I> localAxes = {}, bool softmaxFlatten = false) {
    RuleBuilder rb(c.g);
    const auto& S = c.shape(c.out());
    const std::vector<int> d = outputFactors(rb, S);
    for (I a : localAxes)
        for (I j = a; j < (softmaxFlatten ? I(S.size()) : a + 1); ++j)
            if (j >= 0 && j < I(S.size()))
                rb.setType(d[std::size_t(j)], FactorType::LocalReduction);
    bool any = false;
    for (std::size_t k = 0; k < c.node.inputs.size(); ++k) {
        if (!c.operand(k))
            continue;
        const auto dims = broadcastDims(rb, c.shape(c.in(k)), d, S);
        if (!dims)
            return opaque();
        rb.input(c.in(k), *dims);
        any = true;
    }
    if (!any)
        return opaque();
    Dims outDims;
    for (std::size_t j = 0; j < d.size(); ++j) {
        outDims.push_back({d[j]});
        if (!rb.used(d[j])) // broadcast from size 1 in every input (Expand): only in the output
            rb.setType(d[j], FactorType::Fixed);
    }
    rb.output(c.out(), outDims);
    return rb.finish(kind);
}

std::optional<MappedOp> matmul(const MapContext& c) {
    if (!c.operand(0) || !c.operand(1))
        return opaque();
    const auto &A = c.shape(c.in(0)), &B = c.shape(c.in(1)), &S = c.shape(c.out());
    if (A.empty() || B.empty())
        return opaque();
    RuleBuilder rb(c.g);
    const I k = A.back();
    const int kf = rb.factor("k", k, FactorType::Reduction);
    // Output: batch dims, then m (A not a vector), then n (B not a vector).
    const bool hasM = A.size() >= 2, hasN = B.size() >= 2;
    const I batch = I(S.size()) - hasM - hasN;
    if (batch < 0)
        return opaque();
    const std::vector<I> batchShape(S.begin(), S.begin() + batch);
    const std::vector<int> b = outputFactors(rb, batchShape);
    const int m = hasM ? rb.factor("d", A[A.size() - 2], FactorType::Parallel) : -1;
    const int n = hasN ? rb.factor("d", B.back(), FactorType::Parallel) : -1;
    auto operandDims = [&](const std::vector<I>& s, int second, bool isA) -> std::optional<Dims> {
        const std::size_t matrix = s.size() >= 2 ? 2 : 1;
        const std::vector<I> lead(s.begin(), s.end() - I(matrix));
        auto dims = broadcastDims(rb, lead, b, batchShape);
        if (!dims)
            return std::nullopt;
        if (matrix == 2)
            isA ? (dims->push_back({second}), dims->push_back({kf})) : (dims->push_back({kf}), dims->push_back({second}));
        else
            dims->push_back({kf});
        return dims;
    };
    const auto a = operandDims(A, m, true), bd = operandDims(B, n, false);
    if (!a || !bd || (hasN && B[B.size() - 2] != k))
        return opaque();
    rb.input(c.in(0), *a);
    rb.input(c.in(1), *bd);
    Dims out;
    for (int f : b)
        out.push_back({f});
    if (hasM)
        out.push_back({m});
    if (hasN)
        out.push_back({n});
    rb.output(c.out(), out);
    return rb.finish(OpKind::MatMul);
}

std::optional<MappedOp> gemm(const MapContext& c) {
    const auto &A = c.shape(c.in(0)), &S = c.shape(c.out());
    if (!c.operand(0) || !c.operand(1) || A.size() != 2 || S.size() != 2)
        return opaque();
    const bool ta = c.node.intAttr("transA", 0) != 0, tb = c.node.intAttr("transB", 0) != 0;
    RuleBuilder rb(c.g);
    const int m = rb.factor("d", S[0], FactorType::Parallel), n = rb.factor("d", S[1], FactorType::Parallel);
    const int k = rb.factor("k", ta ? A[0] : A[1], FactorType::Reduction);
    rb.input(c.in(0), ta ? Dims{{k}, {m}} : Dims{{m}, {k}});
    rb.input(c.in(1), tb ? Dims{{n}, {k}} : Dims{{k}, {n}});
    if (c.operand(2)) {
        const auto dims = broadcastDims(rb, c.shape(c.in(2)), {m, n}, S);
        if (!dims)
            return opaque();
        rb.input(c.in(2), *dims);
    }
    rb.output(c.out(), {{m}, {n}});
    return rb.finish(OpKind::MatMul);
}

/// Input and output dims of one spatial axis: shared (same size, halo), strided (input (P, s)) or
/// whole (fixed on both sides: a factor only in outputs may not be split).
void spatial(RuleBuilder& rb, I in, I out, I stride, DimFactors& inDim, DimFactors& outDim) {
    if (in == out) {
        const int p = rb.factor("h", out, FactorType::Halo);
        inDim = {p};
        outDim = {p};
    } else if (stride > 1 && in == out * stride) {
        const int p = rb.factor("h", out, FactorType::Halo);
        inDim = {p, rb.factor("z", stride, FactorType::Fixed)};
        outDim = {p};
    } else {
        inDim = {rb.factor("x", in, FactorType::Fixed)};
        outDim = {rb.factor("p", out, FactorType::Fixed)};
    }
}

std::optional<MappedOp> conv(const MapContext& c) {
    if (!c.operand(0) || !c.operand(1))
        return opaque();
    const auto &X = c.shape(c.in(0)), &W = c.shape(c.in(1)), &S = c.shape(c.out());
    if (X.size() < 3 || W.size() != X.size() || S.size() != X.size())
        return opaque();
    const I group = c.node.intAttr("group", 1);
    const bool depthwise = group > 1 && group == X[1] && W[0] == X[1] && W[1] == 1;
    if (group != 1 && !depthwise)
        return opaque();
    const auto strides = c.node.intsAttr("strides");
    RuleBuilder rb(c.g);
    const int n = rb.factor("d", X[0], FactorType::Parallel);
    const int m = rb.factor("d", S[1], FactorType::Parallel);
    const int ch = depthwise ? m : rb.factor("k", X[1], FactorType::Reduction);
    Dims xd{{n}, {ch}}, wd{{m}, {depthwise ? rb.factor("u", 1, FactorType::Fixed) : ch}}, od{{n}, {m}};
    double work = 2.0 * double(X[0]) * double(S[1]) * double(depthwise ? 1 : X[1]);
    for (std::size_t i = 2; i < X.size(); ++i) {
        DimFactors a, b;
        spatial(rb, X[i], S[i], i - 2 < strides.size() ? strides[i - 2] : 1, a, b);
        xd.push_back(a);
        od.push_back(b);
        wd.push_back({rb.factor("r", W[i], FactorType::Fixed)});
        work *= double(S[i]) * double(W[i]);
    }
    rb.input(c.in(0), xd);
    rb.input(c.in(1), wd);
    if (c.operand(2))
        rb.input(c.in(2), {{m}});
    rb.output(c.out(), od);
    return rb.finish(OpKind::Conv2d, work);
}

std::optional<MappedOp> pool(const MapContext& c, bool global) {
    const auto &X = c.shape(c.in(0)), &S = c.shape(c.out());
    if (!c.operand(0) || X.size() < 3 || S.size() != X.size())
        return opaque();
    RuleBuilder rb(c.g);
    const int n = rb.factor("d", X[0], FactorType::Parallel), ch = rb.factor("d", X[1], FactorType::Parallel);
    Dims xd{{n}, {ch}}, od{{n}, {ch}};
    const auto strides = c.node.intsAttr("strides"), kernel = c.node.intsAttr("kernel_shape");
    double work = double(X[0]) * double(X[1]);
    for (std::size_t i = 2; i < X.size(); ++i) {
        if (global) {
            xd.push_back({rb.factor("k", X[i], FactorType::Reduction)});
            od.push_back({rb.factor("u", S[i], FactorType::Fixed)});
            work *= double(X[i]);
            continue;
        }
        DimFactors a, b;
        spatial(rb, X[i], S[i], i - 2 < strides.size() ? strides[i - 2] : 1, a, b);
        xd.push_back(a);
        od.push_back(b);
        work *= double(S[i]) * double(i - 2 < kernel.size() ? kernel[i - 2] : 1);
    }
    rb.input(c.in(0), xd);
    rb.output(c.out(), od);
    return rb.finish(OpKind::Pool, work);
}

std::optional<MappedOp> reduce(const MapContext& c) {
    if (!c.operand(0))
        return opaque();
    const auto& X = c.shape(c.in(0));
    std::vector<I> axes = c.node.intsAttr("axes");
    if (axes.empty() && c.present(1)) {
        const auto v = c.ints(1);
        if (!v)
            return opaque();
        axes = *v;
    }
    const bool keep = c.node.intAttr("keepdims", 1) != 0;
    std::set<I> reduced;
    for (I a : axes)
        reduced.insert(wrap(a, I(X.size())));
    if (axes.empty() && c.node.intAttr("noop_with_empty_axes", 0) == 0)
        for (I a = 0; a < I(X.size()); ++a)
            reduced.insert(a);
    RuleBuilder rb(c.g);
    Dims xd, od;
    for (I a = 0; a < I(X.size()); ++a) {
        if (reduced.count(a)) {
            xd.push_back({rb.factor("k", X[std::size_t(a)], FactorType::Reduction)});
            if (keep)
                od.push_back({rb.factor("u", 1, FactorType::Fixed)});
        } else {
            const int f = rb.factor("d", X[std::size_t(a)], FactorType::Parallel);
            xd.push_back({f});
            od.push_back({f});
        }
    }
    if (od.size() != c.shape(c.out()).size())
        return opaque();
    rb.input(c.in(0), xd);
    rb.output(c.out(), od);
    return rb.finish(OpKind::Pool, double(product(X)));
}

std::optional<MappedOp> layerNorm(const MapContext& c) {
    const I rank = c.rank();
    return elementwise(c, OpKind::LayerNorm, {wrap(c.node.intAttr("axis", -1), rank)}, true);
}

std::optional<MappedOp> batchNorm(const MapContext& c) {
    const auto& S = c.shape(c.out());
    if (!c.operand(0) || S.size() < 2)
        return opaque();
    RuleBuilder rb(c.g);
    const std::vector<int> d = outputFactors(rb, S);
    Dims xd;
    for (int f : d)
        xd.push_back({f});
    rb.input(c.in(0), xd);
    for (std::size_t k = 1; k < c.node.inputs.size(); ++k)
        if (c.operand(k) && c.shape(c.in(k)) == std::vector<I>{S[1]})
            rb.input(c.in(k), {{d[1]}});
    rb.output(c.out(), xd);
    return rb.finish(OpKind::BatchNorm);
}

std::optional<MappedOp> einsum(const MapContext& c) {
    const auto eq = c.node.attributes.find("equation");
    if (eq == c.node.attributes.end())
        return opaque();
    std::string e;
    for (char ch : eq->second.s)
        if (ch != ' ')
            e += ch;
    const std::size_t arrow = e.find("->");
    if (arrow == std::string::npos || e.find('.') != std::string::npos)
        return opaque();
    std::vector<std::string> terms;
    std::string cur;
    for (char ch : e.substr(0, arrow)) {
        if (ch == ',') {
            terms.push_back(cur);
            cur.clear();
        } else
            cur += ch;
    }
    terms.push_back(cur);
    const std::string outTerm = e.substr(arrow + 2);
    if (terms.size() != c.node.inputs.size())
        return opaque();
    RuleBuilder rb(c.g);
    std::map<char, int> factors;
    auto factorOf = [&](char ch, I size) {
        if (!factors.count(ch))
            factors[ch] = rb.factor(outTerm.find(ch) != std::string::npos ? "d" : "k", size,
                                    outTerm.find(ch) != std::string::npos ? FactorType::Parallel : FactorType::Reduction);
        return factors[ch];
    };
    for (std::size_t k = 0; k < terms.size(); ++k) {
        if (!c.operand(k) || c.shape(c.in(k)).size() != terms[k].size())
            return opaque();
        Dims dims;
        for (std::size_t j = 0; j < terms[k].size(); ++j)
            dims.push_back({factorOf(terms[k][j], c.shape(c.in(k))[j])});
        rb.input(c.in(k), dims);
    }
    Dims od;
    for (std::size_t j = 0; j < outTerm.size(); ++j) {
        if (!factors.count(outTerm[j]))
            return opaque();
        od.push_back({factors[outTerm[j]]});
    }
    rb.output(c.out(), od);
    return rb.finish(OpKind::MatMul);
}

std::optional<MappedOp> loss(const MapContext& c) {
    if (!c.operand(0) || c.shape(c.in(0)).size() < 2)
        return opaque();
    const auto &X = c.shape(c.in(0)), &S = c.shape(c.out());
    RuleBuilder rb(c.g);
    const bool perElement = S.size() + 1 == X.size();
    Dims xd, ld, od;
    for (std::size_t j = 0; j < X.size(); ++j) {
        if (j == 1) {
            xd.push_back({rb.factor("c", X[1], FactorType::LocalReduction)});
            continue;
        }
        const int f = rb.factor("d", X[j], perElement ? FactorType::Parallel : FactorType::Reduction);
        xd.push_back({f});
        ld.push_back({f});
        if (perElement)
            od.push_back({f});
    }
    if (!perElement && !S.empty())
        return opaque();
    rb.input(c.in(0), xd);
    if (c.operand(1) && c.shape(c.in(1)).size() == ld.size())
        rb.input(c.in(1), ld);
    rb.output(c.out(), od);
    return rb.finish(OpKind::CrossEntropy);
}

using Mapper = std::function<std::optional<MappedOp>(const MapContext&)>;

const std::map<std::string, Mapper>& mappers() {
    auto ew = [](OpKind k) { return Mapper([k](const MapContext& c) { return elementwise(c, k); }); };
    static const std::map<std::string, Mapper> table{
        {"MatMul", matmul},
        {"Gemm", gemm},
        {"Einsum", einsum},
        {"Conv", conv},
        {"MaxPool", [](const MapContext& c) { return pool(c, false); }},
        {"AveragePool", [](const MapContext& c) { return pool(c, false); }},
        {"GlobalAveragePool", [](const MapContext& c) { return pool(c, true); }},
        {"GlobalMaxPool", [](const MapContext& c) { return pool(c, true); }},
        {"ReduceMean", reduce}, {"ReduceSum", reduce}, {"ReduceMax", reduce}, {"ReduceMin", reduce},
        {"ReduceProd", reduce}, {"ReduceL2", reduce}, {"ReduceSumSquare", reduce}, {"ReduceLogSumExp", reduce},
        {"Softmax", [](const MapContext& c) { return elementwise(c, OpKind::Softmax, {wrap(c.node.intAttr("axis", c.g.opset >= 13 ? -1 : 1), c.rank())}, c.g.opset < 13); }},
        {"LogSoftmax", [](const MapContext& c) { return elementwise(c, OpKind::Softmax, {wrap(c.node.intAttr("axis", c.g.opset >= 13 ? -1 : 1), c.rank())}, c.g.opset < 13); }},
        {"LayerNormalization", layerNorm},
        {"BatchNormalization", batchNorm},
        {"Reshape", reshape}, {"Flatten", reshape}, {"Squeeze", reshape}, {"Unsqueeze", reshape},
        {"Identity", reshape},
        {"Transpose", transpose},
        {"Concat", [](const MapContext& c) { return positional(c, OpKind::Concat, wrap(c.node.intAttr("axis", 0), c.rank())); }},
        {"Split", [](const MapContext& c) { return positional(c, OpKind::Slice, wrap(c.node.intAttr("axis", 0), c.rank())); }},
        {"Slice", [](const MapContext& c) { return positional(c, OpKind::Slice); }},
        {"Pad", [](const MapContext& c) { return positional(c, OpKind::Slice); }},
        {"Tile", [](const MapContext& c) { return positional(c, OpKind::Concat); }},
        {"Expand", [](const MapContext& c) { return elementwise(c, OpKind::Reshape); }},
        {"Gather", gather},
        {"SoftmaxCrossEntropyLoss", loss}, {"NegativeLogLikelihoodLoss", loss},
        {"Add", ew(OpKind::Add)}, {"Sub", ew(OpKind::Add)}, {"Sum", ew(OpKind::Add)}, {"Mean", ew(OpKind::Add)},
        {"Mul", ew(OpKind::Mul)}, {"Div", ew(OpKind::Mul)}, {"Pow", ew(OpKind::Mul)}, {"Max", ew(OpKind::Mul)},
        {"Min", ew(OpKind::Mul)}, {"Where", ew(OpKind::Mul)}, {"Equal", ew(OpKind::Mul)}, {"Less", ew(OpKind::Mul)},
        {"Greater", ew(OpKind::Mul)}, {"LessOrEqual", ew(OpKind::Mul)}, {"GreaterOrEqual", ew(OpKind::Mul)},
        {"And", ew(OpKind::Mul)}, {"Or", ew(OpKind::Mul)}, {"Xor", ew(OpKind::Mul)}, {"Mod", ew(OpKind::Mul)},
        {"Cast", ew(OpKind::Mul)}, {"Sqrt", ew(OpKind::Mul)}, {"Exp", ew(OpKind::Mul)}, {"Log", ew(OpKind::Mul)},
        {"Neg", ew(OpKind::Mul)}, {"Abs", ew(OpKind::Mul)}, {"Reciprocal", ew(OpKind::Mul)}, {"Not", ew(OpKind::Mul)},
        {"Floor", ew(OpKind::Mul)}, {"Ceil", ew(OpKind::Mul)}, {"Round", ew(OpKind::Mul)}, {"Sign", ew(OpKind::Mul)},
        {"Sin", ew(OpKind::Mul)}, {"Cos", ew(OpKind::Mul)},
        {"Relu", ew(OpKind::Relu)}, {"LeakyRelu", ew(OpKind::Relu)}, {"PRelu", ew(OpKind::Relu)},
        {"Elu", ew(OpKind::Relu)}, {"Selu", ew(OpKind::Relu)}, {"Clip", ew(OpKind::Relu)}, {"Softplus", ew(OpKind::Relu)},
        {"Sigmoid", ew(OpKind::Silu)}, {"HardSigmoid", ew(OpKind::Silu)}, {"HardSwish", ew(OpKind::Silu)},
        {"Silu", ew(OpKind::Silu)},
        {"Gelu", ew(OpKind::Gelu)}, {"Erf", ew(OpKind::Gelu)}, {"Tanh", ew(OpKind::Gelu)},
        {"Dropout", ew(OpKind::Dropout)},
    };
    return table;
}

/// Every dimension of every operand fixed: the op runs whole wherever it runs.
MappedOp opaqueOp(const MapContext& c) {
    RuleBuilder rb(c.g);
    for (std::size_t k = 0; k < c.node.inputs.size(); ++k)
        if (c.operand(k)) {
            Dims dims;
            for (I s : c.shape(c.in(k)))
                dims.push_back({rb.factor("x", s, FactorType::Fixed)});
            rb.input(c.in(k), dims);
        }
    for (const std::string& o : c.node.outputs)
        if (!o.empty()) {
            Dims dims;
            for (I s : c.shape(o))
                dims.push_back({rb.factor("y", s, FactorType::Fixed)});
            rb.output(o, dims);
        }
    return rb.finish(OpKind::Opaque);
}

} // namespace

MappedOp mapNode(const OnnxNode& node, const OnnxGraph& graph) {
    const MapContext c{node, graph};
    // Ops that compute one result: extra outputs (a norm's statistics, dropout's mask) must be unused.
    const bool multiOutput = node.opType == "Split";
    bool extraUsed = false;
    for (std::size_t k = 1; k < node.outputs.size(); ++k)
        extraUsed = extraUsed || !node.outputs[k].empty();
    if (!node.outputs.empty() && !node.outputs.front().empty() && (multiOutput || !extraUsed)) {
        const auto m = mappers().find(node.opType);
        if (m != mappers().end())
            if (auto op = m->second(c)) {
                if (!multiOutput)
                    op->outputs.resize(1), op->rule.outputs.resize(1);
                return std::move(*op);
            }
    }
    return opaqueOp(c);
}

} // namespace shardscope::onnx_import
