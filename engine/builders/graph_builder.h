#pragma once
// A small helper that builders use to add tensors and ops by name with rule text.

#include "engine/ir/graph.h"

#include <string>
#include <vector>

namespace shardscope {

/// Builds a Graph op by op. Each op gets one output tensor named "<op>.out".
class GraphBuilder {
public:
    /// Starts graph `name` whose activations and parameters have type `dtype`.
    GraphBuilder(std::string name, DType dtype);

    /// Adds a model input (token ids, labels, images).
    TensorId input(const std::string& name, std::vector<std::int64_t> shape, DType dtype);
    /// Adds a parameter of the graph's dtype.
    TensorId param(const std::string& name, std::vector<std::int64_t> shape);
    /// Adds op `name` of `kind` with factor rule `rule` (sizes inferred from shapes) and returns its
    /// output tensor of `outShape`. `hints` names the factors the baselines split.
    TensorId op(const std::string& name, OpKind kind, const std::string& rule, std::vector<TensorId> inputs,
                std::vector<std::int64_t> outShape, const std::string& block, OpHints hints = {});
    /// The op that produced tensor `t`, to adjust it (explicit FLOPs, attention-core flag).
    Op& producerOf(TensorId t);
    /// Shape of tensor `t`.
    const std::vector<std::int64_t>& shape(TensorId t) const;
    /// The graph's dtype.
    DType dtype() const { return dtype_; }
    /// Validates and returns the graph. Throws InputError on an inconsistent build.
    Graph finish();

private:
    Graph graph_;
    DType dtype_;
    std::vector<OpId> producer_;
};

} // namespace shardscope
