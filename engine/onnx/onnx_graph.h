#pragma once
// An ONNX model as the importer sees it, after binding symbolic dimensions, shape inference and
// folding of shape-only subgraphs: plain nodes and values with known shapes, free of protobuf.
//
// Every value is data (computed from the model's inputs), a parameter (an initializer, by shape and
// dtype only) or constant (computable without the inputs: Constant nodes, shapes and what is
// computed from them). Nodes whose outputs are all constant are folded away; a data node's constant
// inputs (a Reshape's target shape, a Pow's exponent) act as attributes.

#include "engine/ir/dtype.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardscope::onnx_import {

enum class ValueKind { Data, Parameter, Constant };

/// One value (tensor) of the graph.
struct OnnxValue {
    std::string name;
    std::vector<std::int64_t> shape; ///< known for every data value and parameter
    DType dtype = DType::FP32;
    bool floating = true;            ///< a floating-point element type
    ValueKind kind = ValueKind::Data;
    std::vector<std::int64_t> ints;  ///< a constant integer value, when it was computed
    bool hasInts = false;
};

/// One attribute of a node (the kinds the importer reads).
struct OnnxAttribute {
    std::int64_t i = 0;
    float f = 0;
    std::string s;
    std::vector<std::int64_t> ints;
};

/// One node that computes data.
struct OnnxNode {
    std::string name;   ///< unique (generated from the op type where the file has none)
    std::string opType; ///< "MatMul", or a fused "LayerNormalization", "Gelu", "Silu"
    std::vector<std::string> inputs;  ///< value names; empty for an absent optional input
    std::vector<std::string> outputs;
    std::map<std::string, OnnxAttribute> attributes;

    /// The integer attribute `key`, or `fallback`.
    std::int64_t intAttr(const std::string& key, std::int64_t fallback) const {
        const auto a = attributes.find(key);
        return a == attributes.end() ? fallback : a->second.i;
    }
    /// The integer-list attribute `key`, or `fallback`.
    std::vector<std::int64_t> intsAttr(const std::string& key, std::vector<std::int64_t> fallback = {}) const {
        const auto a = attributes.find(key);
        return a == attributes.end() ? fallback : a->second.ints;
    }
};

/// A parameter seen through Transpose, Identity or Cast nodes (folded away): value dimension j is the
/// source's dimension perm[j]; perm empty when the layout is the source's.
struct ParameterAlias {
    std::string source;
    std::vector<std::int64_t> perm;
};

/// The model: data nodes in topological order and every value they touch.
struct OnnxGraph {
    std::string name;
    std::vector<OnnxNode> nodes;
    std::map<std::string, OnnxValue> values;
    std::vector<std::string> inputs; ///< the model's data inputs, in file order
    int opset = 13;                  ///< of the default domain
    int foldedNodes = 0;             ///< shape-only and constant nodes folded away
    std::map<std::string, ParameterAlias> aliases; ///< by the alias value's name

    /// The value called `name` (which must exist).
    const OnnxValue& value(const std::string& name) const { return values.at(name); }
    /// True when `name` is a data value (not a parameter or constant).
    bool isData(const std::string& name) const {
        const auto v = values.find(name);
        return v != values.end() && v->second.kind == ValueKind::Data;
    }
};

} // namespace shardscope::onnx_import
