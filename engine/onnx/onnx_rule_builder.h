#pragma once
// What every ONNX op mapping (onnx_ops.cpp) builds on: a node with its graph's shapes and constants
// (MapContext), and a rule assembled factor by factor, operand by operand (RuleBuilder).

#include "engine/onnx/onnx_ops.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::onnx_import {

using I = std::int64_t;
using Dims = std::vector<DimFactors>;

/// Builds one op's rule factor by factor, operand by operand.
class RuleBuilder {
public:
    /// A rule for a node of `g`.
    explicit RuleBuilder(const OnnxGraph& g) : g_(g) {}

    /// A new factor of `size` named `prefix` and a running number; its index.
    int factor(const std::string& prefix, I size, FactorType type);
    /// Changes the type of factor `f`.
    void setType(int f, FactorType t) { op_.rule.factors[std::size_t(f)].type = t; }
    /// True when factor `f` appears in an input added so far.
    bool used(int f) const;
    /// Adds input `value` with `dims` in the value's order; a parameter alias becomes its source.
    void input(const std::string& value, Dims dims);
    /// Adds output `value` with `dims`.
    void output(const std::string& value, Dims dims);
    /// The op, of `kind` (with `flops` where the rule's iteration space is not the work).
    MappedOp finish(OpKind kind, std::optional<double> flops = std::nullopt);

private:
    const OnnxGraph& g_;
    MappedOp op_;
    std::map<std::string, int> counts_;
};

/// One node and the graph it is in, as the mappings read them.
struct MapContext {
    const OnnxNode& node;
    const OnnxGraph& g;

    /// The shape of value `v`.
    const std::vector<I>& shape(const std::string& v) const { return g.value(v).shape; }
    /// True when input `k` is given.
    bool present(std::size_t k) const { return k < node.inputs.size() && !node.inputs[k].empty(); }
    /// True when input `k` carries data or a parameter (constants are attributes).
    bool operand(std::size_t k) const {
        return present(k) && g.values.count(node.inputs[k]) && g.value(node.inputs[k]).kind != ValueKind::Constant;
    }
    /// The name of input `k`.
    const std::string& in(std::size_t k) const { return node.inputs[k]; }
    /// The name of the first output.
    const std::string& out() const { return node.outputs.front(); }
    /// The rank of the first output.
    I rank() const { return I(shape(out()).size()); }
    /// The integers of constant input `k`, if known.
    std::optional<std::vector<I>> ints(std::size_t k) const {
        if (!present(k) || !g.values.count(in(k)) || !g.value(in(k)).hasInts)
            return std::nullopt;
        return g.value(in(k)).ints;
    }
};

/// `axis` counted from the end when negative, as ONNX allows.
inline I wrap(I axis, I rank) { return axis < 0 ? axis + rank : axis; }
/// The number of elements of `shape`.
I product(const std::vector<I>& shape);
/// Output factors d0.. of `shape`, one per dimension.
std::vector<int> outputFactors(RuleBuilder& rb, const std::vector<I>& shape);
/// No mapping: the node stays opaque.
inline std::optional<MappedOp> opaque() { return std::nullopt; }

} // namespace shardscope::onnx_import
