#include "engine/onnx/shape_constants.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

namespace shardscope::onnx_import {

namespace {

constexpr std::int64_t kMaxElements = 1000000;

std::int64_t count(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0 || (d > 0 && n > kMaxElements / d))
            return kMaxElements + 1;
        n *= d;
    }
    return n;
}

/// The integers of initializer `t` when stored in the file as INT64 or INT32.
std::optional<IntTensor> fromTensor(const onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
        return std::nullopt;
    IntTensor out;
    out.shape.assign(t.dims().begin(), t.dims().end());
    const std::int64_t n = count(out.shape);
    if (n > kMaxElements)
        return std::nullopt;
    if (t.data_type() == onnx::TensorProto_DataType_INT64) {
        if (t.int64_data_size() == n)
            out.values.assign(t.int64_data().begin(), t.int64_data().end());
        else if (t.raw_data().size() == std::size_t(n) * 8) {
            out.values.resize(std::size_t(n));
            std::memcpy(out.values.data(), t.raw_data().data(), t.raw_data().size());
        } else
            return std::nullopt;
    } else if (t.data_type() == onnx::TensorProto_DataType_INT32) {
        if (t.int32_data_size() == n)
            out.values.assign(t.int32_data().begin(), t.int32_data().end());
        else if (t.raw_data().size() == std::size_t(n) * 4) {
            std::vector<std::int32_t> v(static_cast<std::size_t>(n));
            std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
            out.values.assign(v.begin(), v.end());
        } else
            return std::nullopt;
    } else {
        return std::nullopt;
    }
    return out;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const char* name) {
    for (const auto& a : n.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

/// Axes from the attribute (old opsets) or the second input (opset 13+).
std::optional<std::vector<std::int64_t>> axesOf(const onnx::NodeProto& n, const std::map<std::string, IntTensor>& ints,
                                                int input) {
    if (const auto* a = attribute(n, "axes"))
        return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
    if (n.input_size() > input && !n.input(input).empty()) {
        const auto t = ints.find(n.input(input));
        if (t == ints.end())
            return std::nullopt;
        return t->second.values;
    }
    return std::vector<std::int64_t>{};
}

std::int64_t wrap(std::int64_t axis, std::int64_t rank) { return axis < 0 ? axis + rank : axis; }

/// Element-wise `op` with NumPy broadcasting of equal ranks or scalars (shape calculations need no more).
std::optional<IntTensor> broadcast(const IntTensor& a, const IntTensor& b,
                                   const std::function<std::int64_t(std::int64_t, std::int64_t)>& op) {
    const bool aScalar = a.values.size() == 1, bScalar = b.values.size() == 1;
    if (!aScalar && !bScalar && a.values.size() != b.values.size())
        return std::nullopt;
    IntTensor out = a.values.size() >= b.values.size() ? a : b;
    if (aScalar && bScalar)
        out.shape = a.shape.size() >= b.shape.size() ? a.shape : b.shape;
    for (std::size_t k = 0; k < out.values.size(); ++k)
        out.values[k] = op(a.values[aScalar ? 0 : k], b.values[bScalar ? 0 : k]);
    return out;
}

std::optional<IntTensor> evaluate(const onnx::NodeProto& n, const std::map<std::string, IntTensor>& ints,
                                  const std::map<std::string, std::vector<std::int64_t>>& shapes) {
    const std::string& op = n.op_type();
    auto in = [&](int k) -> const IntTensor* {
        if (n.input_size() <= k || n.input(k).empty())
            return nullptr;
        const auto t = ints.find(n.input(k));
        return t == ints.end() ? nullptr : &t->second;
    };
    if (op == "Constant") {
        if (const auto* a = attribute(n, "value"))
            return fromTensor(a->t());
        if (const auto* a = attribute(n, "value_int"))
            return IntTensor{{}, {a->i()}};
        if (const auto* a = attribute(n, "value_ints"))
            return IntTensor{{a->ints_size()}, std::vector<std::int64_t>(a->ints().begin(), a->ints().end())};
        return std::nullopt;
    }
    if (op == "Shape" || op == "Size") {
        const auto s = shapes.find(n.input(0));
        if (s == shapes.end() || std::any_of(s->second.begin(), s->second.end(), [](std::int64_t d) { return d < 1; }))
            return std::nullopt;
        if (op == "Size")
            return IntTensor{{}, {count(s->second)}};
        const std::int64_t rank = std::int64_t(s->second.size());
        std::int64_t start = 0, end = rank;
        if (const auto* a = attribute(n, "start"))
            start = std::clamp(wrap(a->i(), rank), std::int64_t(0), rank);
        if (const auto* a = attribute(n, "end"))
            end = std::clamp(wrap(a->i(), rank), std::int64_t(0), rank);
        std::vector<std::int64_t> v(s->second.begin() + start, s->second.begin() + std::max(start, end));
        return IntTensor{{std::int64_t(v.size())}, v};
    }
    const IntTensor* x = in(0);
    if (!x)
        return std::nullopt;
    if (op == "Identity" || op == "Cast")
        return *x;
    if (op == "Unsqueeze" || op == "Squeeze") {
        const auto axes = axesOf(n, ints, 1);
        if (!axes)
            return std::nullopt;
        IntTensor out = *x;
        if (op == "Squeeze") {
            std::vector<std::int64_t> s;
            const std::int64_t rank = std::int64_t(x->shape.size());
            for (std::int64_t d = 0; d < rank; ++d) {
                const bool listed = std::any_of(axes->begin(), axes->end(), [&](std::int64_t a) { return wrap(a, rank) == d; });
                if (!(listed || (axes->empty() && x->shape[std::size_t(d)] == 1)))
                    s.push_back(x->shape[std::size_t(d)]);
            }
            out.shape = s;
        } else {
            const std::int64_t rank = std::int64_t(x->shape.size() + axes->size());
            std::vector<std::int64_t> sorted;
            for (std::int64_t a : *axes)
                sorted.push_back(wrap(a, rank));
            std::sort(sorted.begin(), sorted.end());
            for (std::int64_t a : sorted)
                out.shape.insert(out.shape.begin() + std::min<std::int64_t>(a, std::int64_t(out.shape.size())), 1);
        }
        return out;
    }
    if (op == "Concat") {
        IntTensor out;
        for (int k = 0; k < n.input_size(); ++k) {
            const IntTensor* t = in(k);
            if (!t || t->shape.size() > 1)
                return std::nullopt;
            out.values.insert(out.values.end(), t->values.begin(), t->values.end());
        }
        out.shape = {std::int64_t(out.values.size())};
        return out;
    }
    if (op == "Gather") {
        const IntTensor* idx = in(1);
        const auto* axis = attribute(n, "axis");
        if (!idx || x->shape.size() != 1 || (axis && axis->i() != 0))
            return std::nullopt;
        IntTensor out{idx->shape, {}};
        const std::int64_t len = std::int64_t(x->values.size());
        for (std::int64_t i : idx->values) {
            const std::int64_t j = wrap(i, len);
            if (j < 0 || j >= len)
                return std::nullopt;
            out.values.push_back(x->values[std::size_t(j)]);
        }
        return out;
    }
    if (op == "Slice") {
        if (x->shape.size() != 1)
            return std::nullopt;
        const IntTensor *starts = in(1), *ends = in(2), *steps = in(4);
        if (!starts || !ends || starts->values.size() != 1 || ends->values.size() != 1)
            return std::nullopt;
        const std::int64_t len = std::int64_t(x->values.size());
        const std::int64_t step = steps && steps->values.size() == 1 ? steps->values[0] : 1;
        if (step != 1)
            return std::nullopt;
        const std::int64_t b = std::clamp(wrap(starts->values[0], len), std::int64_t(0), len);
        const std::int64_t e = std::clamp(ends->values[0] < -len ? 0 : wrap(std::min(ends->values[0], len), len),
                                          std::int64_t(0), len);
        std::vector<std::int64_t> v(x->values.begin() + b, x->values.begin() + std::max(b, e));
        return IntTensor{{std::int64_t(v.size())}, v};
    }
    if (op == "Reshape") {
        const IntTensor* target = in(1);
        if (!target)
            return std::nullopt;
        IntTensor out = *x;
        out.shape = target->values;
        std::int64_t known = 1, unknownAt = -1;
        for (std::size_t d = 0; d < out.shape.size(); ++d) {
            if (out.shape[d] == 0 && d < x->shape.size())
                out.shape[d] = x->shape[d];
            if (out.shape[d] == -1)
                unknownAt = std::int64_t(d);
            else
                known *= std::max<std::int64_t>(out.shape[d], 1);
        }
        if (unknownAt >= 0)
            out.shape[std::size_t(unknownAt)] = std::int64_t(x->values.size()) / std::max<std::int64_t>(known, 1);
        return count(out.shape) == std::int64_t(x->values.size()) ? std::optional<IntTensor>(out) : std::nullopt;
    }
    if (op == "Range") {
        const IntTensor *limit = in(1), *delta = in(2);
        if (!limit || !delta || x->values.size() != 1 || delta->values.empty() || delta->values[0] == 0)
            return std::nullopt;
        IntTensor out;
        for (std::int64_t v = x->values[0]; delta->values[0] > 0 ? v < limit->values[0] : v > limit->values[0];
             v += delta->values[0]) {
            out.values.push_back(v);
            if (std::int64_t(out.values.size()) > kMaxElements)
                return std::nullopt;
        }
        out.shape = {std::int64_t(out.values.size())};
        return out;
    }
    if (op == "ConstantOfShape") {
        const std::int64_t total = count(x->values);
        if (total > kMaxElements)
            return std::nullopt;
        std::int64_t fill = 0;
        if (const auto* a = attribute(n, "value")) {
            const auto t = fromTensor(a->t());
            if (!t || t->values.size() != 1)
                return std::nullopt;
            fill = t->values[0];
        }
        return IntTensor{x->values, std::vector<std::int64_t>(std::size_t(total), fill)};
    }
    const IntTensor* y = in(1);
    if (op == "Where") {
        const IntTensor* z = in(2);
        if (!y || !z || x->values.size() != y->values.size() || y->values.size() != z->values.size())
            return std::nullopt;
        IntTensor out = *y;
        for (std::size_t k = 0; k < out.values.size(); ++k)
            out.values[k] = x->values[k] ? y->values[k] : z->values[k];
        return out;
    }
    if (!y)
        return std::nullopt;
    using F = std::function<std::int64_t(std::int64_t, std::int64_t)>;
    static const std::map<std::string, F> binary{
        {"Add", [](std::int64_t a, std::int64_t b) { return a + b; }},
        {"Sub", [](std::int64_t a, std::int64_t b) { return a - b; }},
        {"Mul", [](std::int64_t a, std::int64_t b) { return a * b; }},
        {"Div", [](std::int64_t a, std::int64_t b) { return b == 0 ? 0 : a / b; }},
        {"Mod", [](std::int64_t a, std::int64_t b) { return b == 0 ? 0 : a % b; }},
        {"Max", [](std::int64_t a, std::int64_t b) { return std::max(a, b); }},
        {"Min", [](std::int64_t a, std::int64_t b) { return std::min(a, b); }},
        {"Equal", [](std::int64_t a, std::int64_t b) { return std::int64_t(a == b); }},
        {"Less", [](std::int64_t a, std::int64_t b) { return std::int64_t(a < b); }},
        {"Greater", [](std::int64_t a, std::int64_t b) { return std::int64_t(a > b); }},
    };
    const auto f = binary.find(op);
    return f == binary.end() ? std::nullopt : broadcast(*x, *y, f->second);
}

} // namespace

void evaluateConstants(const onnx::GraphProto& graph, const std::set<std::string>& initializers,
                       const std::map<std::string, std::vector<std::int64_t>>& shapes,
                       const std::map<std::string, ValueKind>& kinds, std::map<std::string, IntTensor>& ints) {
    for (const onnx::TensorProto& t : graph.initializer())
        if (!ints.count(t.name()) && initializers.count(t.name()))
            if (auto v = fromTensor(t))
                ints.emplace(t.name(), std::move(*v));
    for (const onnx::NodeProto& n : graph.node()) {
        if (n.output_size() != 1 || n.output(0).empty() || ints.count(n.output(0)))
            continue;
        const auto kind = kinds.find(n.output(0));
        if (kind == kinds.end() || kind->second != ValueKind::Constant)
            continue;
        if (auto v = evaluate(n, ints, shapes); v && count(v->shape) == std::int64_t(v->values.size()))
            ints.emplace(n.output(0), std::move(*v));
    }
}

} // namespace shardscope::onnx_import
