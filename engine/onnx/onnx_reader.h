#pragma once
// Reads an ONNX file into an OnnxGraph: parses the protobuf (weights are never interpreted and
// external-data files never opened), checks that every node's inputs exist and the nodes form no
// cycle, binds the symbolic input dimensions, then alternates ONNX shape inference with evaluation
// of the shape-only subgraphs (Shape, Gather, Unsqueeze, Concat, Constant, arithmetic on shapes)
// until every data value's shape is known: a Reshape whose target is computed from x.shape gets its
// shape once that computation is folded into a constant.

#include "engine/onnx/onnx_graph.h"

#include <cstdint>
#include <map>
#include <string>

namespace shardscope::onnx_import {

/// Values for symbolic dimensions, by the file's dim_param name; "batch" and "seq" also bind the
/// first and second dimension of the first input when those are symbolic.
using DimBindings = std::map<std::string, std::int64_t>;

/// Reads `path`. Throws InputError naming the file and the node, input or dimension at fault: bad
/// protobuf, a missing input, a cycle, an unbound symbolic dimension, a shape that cannot be inferred.
OnnxGraph readOnnx(const std::string& path, const DimBindings& bindings);

} // namespace shardscope::onnx_import
