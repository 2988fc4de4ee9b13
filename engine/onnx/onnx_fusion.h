#pragma once
// Recognises the patterns exporters write for one framework op and fuses each into one node:
// LayerNorm as ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div (then Mul by the scale and Add the
// bias) becomes "LayerNormalization"; an island of element-wise nodes reading one value x with one
// result becomes "Gelu" when it holds Erf or Tanh (x/2 (1 + erf(x/sqrt 2)), the tanh approximation)
// and "Silu" when it holds Sigmoid (x sigmoid(x)).

#include "engine/onnx/onnx_graph.h"

namespace shardscope::onnx_import {

/// Fuses the patterns in place; returns how many nodes the fused ones replaced.
int fusePatterns(OnnxGraph& graph);

} // namespace shardscope::onnx_import
