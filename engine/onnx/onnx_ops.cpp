#include "engine/onnx/onnx_ops.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace shardscope::onnx_import {

namespace {

using I = std::int64_t;
using Dims = std::vector<DimFactors>;

/// Builds one op's rule factor by factor, operand by operand.
class RuleBuilder {
public:
    explicit RuleBuilder(const OnnxGraph& g) : g_(g) {}

    int factor(const std::string& prefix, I size, FactorType type) {
        op_.rule.factors.push_back(Factor{prefix + std::to_string(counts_[prefix]++), size, type});
        return int(op_.rule.factors.size()) - 1;
    }
    void setType(int f, FactorType t) { op_.rule.factors[std::size_t(f)].type = t; }
    /// True when factor `f` appears in an input added so far.
    bool used(int f) const {
        for (const OperandFactors& operand : op_.rule.inputs)
            for (const DimFactors& dim : operand)
                if (std::find(dim.begin(), dim.end(), f) != dim.end())
                    return true;
        return false;
    }
    /// Adds input `value` with `dims` in the value's order; a parameter alias becomes its source.
    void input(const std::string& value, Dims dims) {
        const auto alias = g_.aliases.find(value);
        if (alias == g_.aliases.end()) {
            op_.inputs.push_back(value);
        } else {
            const auto& perm = alias->second.perm;
            if (!perm.empty()) {
                Dims source(dims.size());
                for (std::size_t j = 0; j < dims.size() && j < perm.size(); ++j)
                    source[std::size_t(perm[j])] = dims[j];
                dims = std::move(source);
            }
            op_.inputs.push_back(alias->second.source);
        }
        op_.rule.inputs.push_back(std::move(dims));
    }
    void output(const std::string& value, Dims dims) {
        op_.outputs.push_back(value);
        op_.rule.outputs.push_back(std::move(dims));
    }
    MappedOp finish(OpKind kind, std::optional<double> flops = std::nullopt) {
        op_.kind = kind;
        op_.flops = flops;
        return std::move(op_);
    }

private:
    const OnnxGraph& g_;
    MappedOp op_;
    std::map<std::string, int> counts_;
};

struct Context {
    const OnnxNode& node;
    const OnnxGraph& g;

    const std::vector<I>& shape(const std::string& v) const { return g.value(v).shape; }
    bool present(std::size_t k) const { return k < node.inputs.size() && !node.inputs[k].empty(); }
    /// True when input `k` carries data or a parameter (constants are attributes).
    bool operand(std::size_t k) const {
        return present(k) && g.values.count(node.inputs[k]) && g.value(node.inputs[k]).kind != ValueKind::Constant;
    }
    const std::string& in(std::size_t k) const { return node.inputs[k]; }
    const std::string& out() const { return node.outputs.front(); }
    I rank() const { return I(shape(out()).size()); }
    /// The integers of constant input `k`, if known.
    std::optional<std::vector<I>> ints(std::size_t k) const {
        if (!present(k) || !g.values.count(in(k)) || !g.value(in(k)).hasInts)
            return std::nullopt;
        return g.value(in(k)).ints;
    }
};

I wrap(I axis, I rank) { return axis < 0 ? axis + rank : axis; }

I product(const std::vector<I>& s) {
    I p = 1;
    for (I d : s)
        p *= d;
    return p;
}

/// Output factors d0.. of `shape`, one per dimension.
std::vector<int> outputFactors(RuleBuilder& rb, const std::vector<I>& shape) {
    std::vector<int> d;
    for (I s : shape)
        d.push_back(rb.factor("d", s, FactorType::Parallel));
    return d;
}

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

std::optional<MappedOp> opaque() { return std::nullopt; }

std::optional<MappedOp> elementwise(const Context& c, OpKind kind, std::set<I> localAxes = {}, bool softmaxFlatten = false) {
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

std::optional<MappedOp> matmul(const Context& c) {
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

std::optional<MappedOp> gemm(const Context& c) {
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

std::optional<MappedOp> conv(const Context& c) {
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

std::optional<MappedOp> pool(const Context& c, bool global) {
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

std::optional<MappedOp> reduce(const Context& c) {
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

std::optional<MappedOp> layerNorm(const Context& c) {
    const I rank = c.rank();
    return elementwise(c, OpKind::LayerNorm, {wrap(c.node.intAttr("axis", -1), rank)}, true);
}

std::optional<MappedOp> batchNorm(const Context& c) {
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

/// Maps the dimensions of a reshape: runs of dimensions with equal products share factors; one
/// dimension splitting into several is a compound of theirs (major first), and the reverse.
std::optional<MappedOp> reshape(const Context& c) {
    if (!c.operand(0))
        return opaque();
    const auto &in = c.shape(c.in(0)), &out = c.shape(c.out());
    if (product(in) != product(out))
        return opaque();
    RuleBuilder rb(c.g);
    Dims id(in.size()), od(out.size());
    std::vector<std::size_t> ia, oa;
    for (std::size_t i = 0; i < in.size(); ++i)
        in[i] == 1 ? void(id[i] = {rb.factor("u", 1, FactorType::Fixed)}) : ia.push_back(i);
    for (std::size_t j = 0; j < out.size(); ++j)
        out[j] == 1 ? void(od[j] = {rb.factor("u", 1, FactorType::Fixed)}) : oa.push_back(j);
    std::size_t p = 0, q = 0;
    while (p < ia.size() && q < oa.size()) {
        std::size_t p1 = p + 1, q1 = q + 1;
        I a = in[ia[p]], b = out[oa[q]];
        while (a != b) {
            if (a < b && p1 < ia.size())
                a *= in[ia[p1++]];
            else if (b < a && q1 < oa.size())
                b *= out[oa[q1++]];
            else
                return opaque();
        }
        if (p1 - p == 1) {
            DimFactors compound;
            for (std::size_t k = q; k < q1; ++k) {
                const int f = rb.factor("d", out[oa[k]], FactorType::Parallel);
                od[oa[k]] = {f};
                compound.push_back(f);
            }
            id[ia[p]] = compound;
        } else if (q1 - q == 1) {
            DimFactors compound;
            for (std::size_t k = p; k < p1; ++k) {
                const int f = rb.factor("d", in[ia[k]], FactorType::Parallel);
                id[ia[k]] = {f};
                compound.push_back(f);
            }
            od[oa[q]] = compound;
        } else { // regrouped both ways: kept whole
            for (std::size_t k = p; k < p1; ++k)
                id[ia[k]] = {rb.factor("x", in[ia[k]], FactorType::Fixed)};
            for (std::size_t k = q; k < q1; ++k)
                od[oa[k]] = {rb.factor("y", out[oa[k]], FactorType::Fixed)};
        }
        p = p1;
        q = q1;
    }
    if (p != ia.size() || q != oa.size())
        return opaque();
    rb.input(c.in(0), id);
    rb.output(c.out(), od);
    return rb.finish(OpKind::Reshape);
}

std::optional<MappedOp> transpose(const Context& c) {
    if (!c.operand(0))
        return opaque();
    const auto& in = c.shape(c.in(0));
    std::vector<I> perm = c.node.intsAttr("perm");
    if (perm.empty())
        for (I d = I(in.size()); d-- > 0;)
            perm.push_back(d);
    if (perm.size() != in.size())
        return opaque();
    RuleBuilder rb(c.g);
    const std::vector<int> f = outputFactors(rb, in);
    Dims id, od;
    for (int x : f)
        id.push_back({x});
    for (I p : perm) {
        if (p < 0 || p >= I(in.size()))
            return opaque();
        od.push_back({f[std::size_t(p)]});
    }
    rb.input(c.in(0), id);
    rb.output(c.out(), od);
    return rb.finish(OpKind::Transpose);
}

/// Same-rank ops that change some dimensions' sizes (Slice, Pad, Concat, Split, Expand, Tile...):
/// equal sizes share a factor; a dimension that changes, or `along`, is fixed on every side.
std::optional<MappedOp> positional(const Context& c, OpKind kind, I along = -1) {
    const I rank = I(c.shape(c.out()).size());
    RuleBuilder rb(c.g);
    std::vector<int> shared(std::size_t(rank), -1);
    for (I j = 0; j < rank; ++j) {
        bool same = j != along;
        for (std::size_t k = 0; k < c.node.inputs.size() && same; ++k)
            if (c.operand(k))
                same = I(c.shape(c.in(k)).size()) == rank && c.shape(c.in(k))[std::size_t(j)] == c.shape(c.out())[std::size_t(j)];
        for (const std::string& o : c.node.outputs)
            same = same && (o.empty() || c.shape(o)[std::size_t(j)] == c.shape(c.out())[std::size_t(j)]);
        if (same)
            shared[std::size_t(j)] = rb.factor("d", c.shape(c.out())[std::size_t(j)], FactorType::Parallel);
    }
    auto dimsOf = [&](const std::vector<I>& s, const char* prefix) {
        Dims dims;
        for (I j = 0; j < rank; ++j)
            dims.push_back({shared[std::size_t(j)] >= 0 ? shared[std::size_t(j)] : rb.factor(prefix, s[std::size_t(j)], FactorType::Fixed)});
        return dims;
    };
    bool any = false;
    for (std::size_t k = 0; k < c.node.inputs.size(); ++k)
        if (c.operand(k)) {
            if (I(c.shape(c.in(k)).size()) != rank)
                return opaque();
            rb.input(c.in(k), dimsOf(c.shape(c.in(k)), "x"));
            any = true;
        }
    if (!any)
        return opaque();
    for (const std::string& o : c.node.outputs)
        if (!o.empty())
            rb.output(o, dimsOf(c.shape(o), "y"));
    return rb.finish(kind);
}

/// Gather from a parameter table along axis 0: an embedding lookup (rows a gather factor).
std::optional<MappedOp> gather(const Context& c) {
    const bool table = c.present(0) && c.g.values.count(c.in(0)) && c.g.value(c.in(0)).kind == ValueKind::Parameter;
    const I axis = c.node.intAttr("axis", 0);
    if (!table)
        return c.shape(c.in(0)).size() == c.shape(c.out()).size() ? positional(c, OpKind::Slice, wrap(axis, c.rank()))
                                                                   : opaque();
    const auto &T = c.shape(c.in(0)), &S = c.shape(c.out());
    if (axis != 0 || T.empty())
        return opaque();
    const std::size_t indexRank = S.size() - (T.size() - 1);
    RuleBuilder rb(c.g);
    const std::vector<int> d = outputFactors(rb, S);
    const int v = rb.factor("v", T[0], FactorType::Gather);
    Dims td{{v}}, id, od;
    for (std::size_t j = 0; j < S.size(); ++j) {
        od.push_back({d[j]});
        if (j < indexRank)
            id.push_back({d[j]});
        else
            td.push_back({d[j]});
    }
    if (c.operand(1))
        rb.input(c.in(1), id);
    else // constant indices (position ids): their dimensions exist only in the output
        for (std::size_t j = 0; j < indexRank; ++j)
            rb.setType(d[j], FactorType::Fixed);
    rb.input(c.in(0), td);
    rb.output(c.out(), od);
    return rb.finish(OpKind::Embedding);
}

std::optional<MappedOp> einsum(const Context& c) {
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

std::optional<MappedOp> loss(const Context& c) {
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

using Mapper = std::function<std::optional<MappedOp>(const Context&)>;

const std::map<std::string, Mapper>& mappers() {
    auto ew = [](OpKind k) { return Mapper([k](const Context& c) { return elementwise(c, k); }); };
    static const std::map<std::string, Mapper> table{
        {"MatMul", matmul},
        {"Gemm", gemm},
        {"Einsum", einsum},
        {"Conv", conv},
        {"MaxPool", [](const Context& c) { return pool(c, false); }},
        {"AveragePool", [](const Context& c) { return pool(c, false); }},
        {"GlobalAveragePool", [](const Context& c) { return pool(c, true); }},
        {"GlobalMaxPool", [](const Context& c) { return pool(c, true); }},
        {"ReduceMean", reduce}, {"ReduceSum", reduce}, {"ReduceMax", reduce}, {"ReduceMin", reduce},
        {"ReduceProd", reduce}, {"ReduceL2", reduce}, {"ReduceSumSquare", reduce}, {"ReduceLogSumExp", reduce},
        {"Softmax", [](const Context& c) { return elementwise(c, OpKind::Softmax, {wrap(c.node.intAttr("axis", c.g.opset >= 13 ? -1 : 1), c.rank())}, c.g.opset < 13); }},
        {"LogSoftmax", [](const Context& c) { return elementwise(c, OpKind::Softmax, {wrap(c.node.intAttr("axis", c.g.opset >= 13 ? -1 : 1), c.rank())}, c.g.opset < 13); }},
        {"LayerNormalization", layerNorm},
        {"BatchNormalization", batchNorm},
        {"Reshape", reshape}, {"Flatten", reshape}, {"Squeeze", reshape}, {"Unsqueeze", reshape},
        {"Identity", reshape},
        {"Transpose", transpose},
        {"Concat", [](const Context& c) { return positional(c, OpKind::Concat, wrap(c.node.intAttr("axis", 0), c.rank())); }},
        {"Split", [](const Context& c) { return positional(c, OpKind::Slice, wrap(c.node.intAttr("axis", 0), c.rank())); }},
        {"Slice", [](const Context& c) { return positional(c, OpKind::Slice); }},
        {"Pad", [](const Context& c) { return positional(c, OpKind::Slice); }},
        {"Tile", [](const Context& c) { return positional(c, OpKind::Concat); }},
        {"Expand", [](const Context& c) { return elementwise(c, OpKind::Reshape); }},
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
MappedOp opaqueOp(const Context& c) {
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
    const Context c{node, graph};
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
