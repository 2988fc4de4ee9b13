#pragma once
// A plan's tensor-parallel axis as PyTorch's module styles (torch.distributed.tensor.parallel): per
// module with parameters, ColwiseParallel (its weight split on the output features), RowwiseParallel
// (split on the contracted features, or an embedding's rows) or SequenceParallel (weights whole,
// activations split on one dimension), with the input and output layouts (Shard(d) / Replicate())
// that make DTensor reshard exactly where the plan does. Modules without parameters run on local
// shards, so a plan is expressible only when every reshard falls at a styled module's input or at a
// row-wise module's reduction; otherwise the op and tensor are named.
//
// Example: megatron-sp on data=8,model=8 (GPT): layers.0.norm1 SequenceParallel(sequence_dim=1);
// layers.0.attn.qkv ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(3));
// layers.0.attn.proj RowwiseParallel(input_layouts=Shard(1), output_layouts=Shard(1)).

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

enum class ModuleStyle { Colwise, Rowwise, Sequence };

/// A layout on the tensor-parallel axis: nullopt for Replicate(), else Shard(d); d = -1 for a feature
/// dimension (torch's modules keep features last, where this graph may split them over several dims).
using DtensorLayout = std::optional<int>;

/// One module's style on the tensor-parallel axis.
struct DtensorStyle {
    std::size_t op = 0;         ///< the op (module) of the graph
    ModuleStyle style = ModuleStyle::Colwise;
    DtensorLayout input;        ///< the layout its activation input arrives in
    DtensorLayout output;       ///< the layout it hands on (Sequence: Shard(sequence dimension))
    bool localOutput = true;    ///< false when a vocabulary-parallel loss reads the DTensor
    bool splitTableKeptWhole = false; ///< a parameter the plan splits over the sequence (position table)

    /// The Python expression, e.g. "ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(2))".
    std::string python() const;
};

/// The styled modules of `plan` on its axis `axis`, in op order. Throws InputError naming the op (and
/// tensor) a module style cannot express.
std::vector<DtensorStyle> dtensorStyles(const Graph& graph, const Plan& plan, AxisId axis);

} // namespace shardscope
