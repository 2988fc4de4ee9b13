#pragma once
// ONNX files as graphs: reads (onnx_reader), fuses the exporters' patterns (onnx_fusion), maps each
// node to an op (onnx_ops), marks attention (MatMul -> Softmax -> MatMul), and builds the Graph that
// the search and the views use. What it could not map is listed; it stays in the graph as opaque ops.
//
// Example: a two-layer encoder exported by torch.onnx (227 nodes) imports as 55 ops: 124 constant and
// shape nodes folded, 55 nodes fused into 5 LayerNorm and 2 GELU ops, no opaque op.

#include "engine/ir/graph.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

/// A graph imported from ONNX and what the import did to get it.
struct OnnxImport {
    Graph graph;
    std::vector<std::pair<std::string, std::string>> opaque; ///< (node, op type) of every op kept whole
    int nodes = 0;   ///< nodes in the file
    int folded = 0;  ///< constant and shape-only nodes folded away
    int fused = 0;   ///< nodes replaced by fused LayerNorm / GELU / SiLU ops
};

/// Imports `path`. `sets` are "NAME=N" bindings of symbolic dimensions ("batch" and "seq" bind the
/// first input's first two) and "dtype=bf16|fp16|fp32" (the precision of the float values; bf16
/// unless set); `batch` (--batch) binds "batch" too. With `microbatches` > 1 the graph is one
/// micro-batch: the bound batch divided by it. Throws InputError naming the file and the node, input,
/// dimension or setting at fault.
OnnxImport importOnnx(const std::string& path, const std::vector<std::string>& sets, std::optional<int> batch,
                      int microbatches);

} // namespace shardscope
