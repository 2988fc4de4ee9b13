#pragma once
// ONNX nodes as ops of the graph: a sharding rule per op type from the operands' shapes (MatMul,
// Gemm, Conv, element-wise ops with broadcasting, Softmax, LayerNormalization, BatchNormalization,
// Reshape and its kin, Transpose, Concat, Split, Slice, Gather as an embedding lookup, pooling,
// reductions, losses); anything else an opaque op: every dimension fixed, so it stays whole.
//
// Example: MatMul of [8,128,256] by the parameter [256,768] becomes
// ([d0,d1,k0],[k0,d2])->([d0,d1,d2]); a Reshape [8,128,256] -> [8,128,8,32] becomes
// ([d0,d1,(d2,d3)])->([d0,d1,d2,d3]), so a split of the hidden size is a split of the heads.

#include "engine/ir/graph.h"
#include "engine/onnx/onnx_graph.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::onnx_import {

/// One node as an op: its kind, rule, operands (value names in rule order; a parameter seen through
/// a Transpose is named by its source, its dimensions in the source's order) and outputs.
struct MappedOp {
    OpKind kind = OpKind::Opaque;
    ShardingRule rule;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::optional<double> flops; ///< set where the rule's iteration space is not the work (convolution, pooling)
};

/// `node` of `graph` as an op. Opaque (kind Opaque) when its type has no mapping here.
MappedOp mapNode(const OnnxNode& node, const OnnxGraph& graph);

} // namespace shardscope::onnx_import
