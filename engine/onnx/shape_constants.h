#pragma once
// Evaluation of the integer constants ONNX exports compute shapes with: Constant, Shape, Size,
// Gather, Unsqueeze, Squeeze, Concat, Slice, Cast, Identity, Reshape, Range, ConstantOfShape and
// element-wise arithmetic and comparisons on small integer tensors. Float constants and anything
// larger than a million elements stay unevaluated.

#include "engine/onnx/onnx_graph.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shardscope::onnx_import {

/// An evaluated integer tensor.
struct IntTensor {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> values; ///< row-major
};

/// Adds to `ints` every constant value of `graph` it can compute: integer initializers stored in the
/// file (never external data), then constant nodes in order. `shapes` are the inferred shapes (-1
/// unknown), `kinds` each value's kind.
void evaluateConstants(const onnx::GraphProto& graph, const std::set<std::string>& initializers,
                       const std::map<std::string, std::vector<std::int64_t>>& shapes,
                       const std::map<std::string, ValueKind>& kinds, std::map<std::string, IntTensor>& ints);

} // namespace shardscope::onnx_import
