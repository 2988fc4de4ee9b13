#pragma once
// Op strategies and the tensor shardings they imply (docs/DESIGN.md, Sharding and resharding).

#include "engine/cluster/mesh.h"
#include "engine/sharding/axis_factors.h"
#include "engine/ir/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// For each mesh axis, the index of the op factor it splits, or -1 for none.
/// Example: on mesh `data=2,model=4` the column-split linear is {0 -> b, 1 -> f}.
struct OpStrategy {
    AxisFactors factorOfAxis;

    /// All axes splitting nothing, on a mesh of `rank` axes.
    static OpStrategy replicated(std::size_t rank) { return OpStrategy{AxisFactors(rank, -1)}; }
    /// The axes that split factor `f`.
    AxisSet axesOn(int f) const;
    /// The axes that split any factor.
    AxisSet usedAxes() const;
    /// Text such as "data:b model:f", or "replicated"; factor names from `rule`.
    std::string toString(const ShardingRule& rule, const Mesh& mesh) const;

    auto operator<=>(const OpStrategy&) const = default;
};

/// A constraint on an op's strategy: per mesh axis, the factor it must split (-1: nothing), or free.
/// Tactics pin the axes they decided; a lock pins every axis.
struct StrategyPin {
    std::vector<std::optional<int>> factorOfAxis;

    /// Every axis pinned to what `s` does.
    static StrategyPin of(const OpStrategy& s);
    /// True when `s` agrees with every pinned axis.
    bool allows(const OpStrategy& s) const;
    /// True when every axis is pinned.
    bool complete() const;

    bool operator==(const StrategyPin&) const = default;
};

/// A tensor's layout across the mesh: per dimension the axes splitting it (in mesh order), and the
/// axes over which it is partial (unreduced). Axes in neither are replicated.
struct TensorSharding {
    std::vector<AxisSet> dims;
    AxisSet partial = 0;

    /// Axes splitting some dimension.
    AxisSet splitAxes() const;
    /// Text such as "[data,-,model] partial{model}".
    std::string toString(const Mesh& mesh) const;

    auto operator<=>(const TensorSharding&) const = default;
};

/// Empty when `s` is valid for `op` on `mesh`; otherwise why not (factor, axis, divisibility).
std::string verifyStrategy(const Op& op, const Mesh& mesh, const OpStrategy& s);
/// Every valid strategy of `op` on `mesh`, replicated first, in a fixed order.
std::vector<OpStrategy> enumerateStrategies(const Op& op, const Mesh& mesh);

/// Sharding of input operand `k` as `op` consumes it under `s` (never partial).
TensorSharding inputSharding(const Op& op, std::size_t k, const OpStrategy& s);
/// Sharding of output `k` as `op` produces it: partial on axes splitting reduction or gather factors.
TensorSharding outputSharding(const Op& op, std::size_t k, const OpStrategy& s);
/// Axes splitting some dimension of input `k` under `s`: inputSharding(...).splitAxes(), unbuilt.
AxisSet inputSplitAxes(const Op& op, std::size_t k, const OpStrategy& s);
/// Axes splitting some dimension of output `k` under `s`: outputSharding(...).splitAxes(), unbuilt.
AxisSet outputSplitAxes(const Op& op, std::size_t k, const OpStrategy& s);
/// Axes on which the gradient for input `k` is partial: those splitting factors absent from it.
AxisSet inputGradientPartial(const Op& op, std::size_t k, const OpStrategy& s);
/// Local (per-device) fraction of an operand with sharding `t`: 1 / product of split axis sizes.
double localFraction(const TensorSharding& t, const Mesh& mesh);

} // namespace shardscope
