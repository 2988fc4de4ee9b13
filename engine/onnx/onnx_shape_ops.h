#pragma once
// The ONNX ops that move data between dimensions rather than compute on it: Reshape and its kin,
// Transpose, the same-rank ops that resize dimensions (Slice, Pad, Concat, Split, Expand, Tile),
// and Gather as an embedding lookup. Each maps a node to a rule whose factors follow the data
// (onnx_ops.h has the examples), or to nothing when it cannot (the node stays opaque).

#include "engine/onnx/onnx_rule_builder.h"

namespace shardscope::onnx_import {

/// Reshape: runs of dimensions with equal products share factors; a dimension splitting into
/// several is a compound of theirs (major first), and the reverse.
std::optional<MappedOp> reshape(const MapContext& c);
/// Transpose of data (a parameter's transpose is an alias of its source, not an op).
std::optional<MappedOp> transpose(const MapContext& c);
/// A same-rank op changing some dimensions' sizes: equal sizes share a factor; a dimension that
/// changes, or `along` (>= 0), is fixed on every side.
std::optional<MappedOp> positional(const MapContext& c, OpKind kind, I along = -1);
/// Gather from a parameter table along axis 0: an embedding lookup (rows a gather factor).
std::optional<MappedOp> gather(const MapContext& c);

} // namespace shardscope::onnx_import
