#pragma once
// The computation graph of one micro-batch's forward pass (docs/DESIGN.md, Graph IR).

#include "engine/ir/dtype.h"
#include "engine/ir/op_kind.h"
#include "engine/ir/sharding_rule.h"
#include "engine/util/ids.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

enum class TensorRole { Input, Parameter, Activation, Constant };

/// The file name of `r`: "input", "parameter", "activation", "constant".
std::string_view tensorRoleName(TensorRole r);
/// Parses a role name; nullopt if unknown.
std::optional<TensorRole> parseTensorRole(std::string_view name);

/// A tensor of the graph. `producer` and `consumers` are filled by Graph::finalize().
struct Tensor {
    std::string name;
    std::vector<std::int64_t> shape;
    DType dtype = DType::BF16;
    TensorRole role = TensorRole::Activation;
    OpId producer;
    std::vector<OpId> consumers;

    /// Number of elements (product of the shape). Inline: the cost model asks for it per candidate.
    double elements() const {
        double e = 1;
        for (auto d : shape)
            e *= static_cast<double>(d);
        return e;
    }
    /// Size in bytes.
    double bytes() const { return elements() * dtypeBytes(dtype); }
};

/// Names of the factors that the baseline plans split (docs/DESIGN.md, Baselines). Empty means "none".
struct OpHints {
    std::string batch;    ///< split by data parallelism
    std::string tensor;   ///< split by Megatron tensor parallelism
    std::string sequence; ///< split by sequence parallelism where the op has no tensor split
    std::string expert;   ///< split by expert parallelism
};

/// An op of the graph.
struct Op {
    std::string name;
    OpKind kind = OpKind::MatMul;
    std::vector<TensorId> inputs;
    std::vector<TensorId> outputs;
    std::string block;             ///< block path, e.g. "layers.7.mlp"
    ShardingRule rule;
    std::optional<double> flops;   ///< forward FLOPs if the file states them
    OpHints hints;
    bool attentionCore = false;    ///< recomputed under selective recomputation
    /// An attention-core contraction under a causal mask (decoder LMs): a fused kernel computes only
    /// the blocks on and below the diagonal, half its s x t FLOPs; unfused ones compute all and mask.
    bool causal = false;
    /// Sliding-window attention: each query attends only its `window` most recent keys, itself
    /// included (a band under the causal diagonal), on an attention-core op whose keys are factor
    /// "t"; 0 = every key. A fused kernel computes only the band; unfused ones compute all and mask.
    std::int64_t window = 0;

    /// The share of the op's query x key products a fused attention kernel computes: the sliding
    /// window's band when the window is shorter than the keys, half under a causal mask, else all.
    double attendedShare() const;
};

/// Ops and tensors, validated and topologically ordered by finalize().
class Graph {
public:
    std::string name;

    /// Adds a tensor and returns its id. Assumes the name is new (finalize() checks).
    TensorId addTensor(Tensor t);
    /// Adds an op and returns its id.
    OpId addOp(Op op);

    /// Validates (docs/DESIGN.md, Graph IR): unique names, rule agrees with shapes, one producer per tensor,
    /// no cycles; fills producers, consumers and the topological order. Throws InputError naming
    /// the op and the field.
    void finalize();

    /// Every tensor, indexed by TensorId.
    const std::vector<Tensor>& tensors() const { return tensors_; }
    /// Every op, indexed by OpId.
    const std::vector<Op>& ops() const { return ops_; }
    /// The tensor with id `t`.
    const Tensor& tensor(TensorId t) const { return tensors_[t.index()]; }
    /// The op with id `o`.
    const Op& op(OpId o) const { return ops_[o.index()]; }
    /// Mutable op access for builders that adjust hints before finalize().
    Op& mutableOp(OpId o) { return ops_[o.index()]; }
    /// Ops in a topological order (valid after finalize()).
    const std::vector<OpId>& topoOrder() const { return order_; }
    /// The op called `name`, if any.
    std::optional<OpId> findOp(const std::string& name) const;
    /// The tensor called `name`, if any.
    std::optional<TensorId> findTensor(const std::string& name) const;

    /// Number of parameter elements.
    double parameterCount() const;
    /// Forward FLOPs of op `o` for the whole (unsharded) micro-batch.
    double forwardFlops(OpId o) const;
    /// True when the graph has routed experts (ops with an expert factor hinted).
    bool hasRoutedExperts() const;
    /// The first consumer of parameter `t` in topological order: the op that owns its storage.
    OpId parameterOwner(TensorId t) const;

private:
    std::vector<Tensor> tensors_;
    std::vector<Op> ops_;
    std::vector<OpId> order_;
    std::vector<int> topoPosition_;
    std::map<std::string, OpId> opByName_;
    std::map<std::string, TensorId> tensorByName_;
};

} // namespace shardscope
