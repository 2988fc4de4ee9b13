#include "engine/onnx/onnx_shape_ops.h"

#include <algorithm>

namespace shardscope::onnx_import {

std::optional<MappedOp> reshape(const MapContext& c) {
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

std::optional<MappedOp> transpose(const MapContext& c) {
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

std::optional<MappedOp> positional(const MapContext& c, OpKind kind, I along) {
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

std::optional<MappedOp> gather(const MapContext& c) {
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

} // namespace shardscope::onnx_import
