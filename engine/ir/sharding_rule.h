#pragma once
// The einsum-like factor rule of an op (docs/DESIGN.md, Graph IR).
//
// Example: a linear layer `([b,s,h],[h,f])->([b,s,f]) {b=8,s=2048,h=4096,f=16384}` has factors
// b, s, f (parallel: they appear in the output) and h (reduction: inputs only). A dimension may be
// a product of factors, written `(n,d)`, major first: reshape `([b,s,(n,d)])->([b,s,n,d])`. Only
// the major factor of a compound dimension can be split, so a split of h maps to a split of n.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

/// How splitting a factor affects the op (docs/DESIGN.md, Graph IR).
enum class FactorType {
    Parallel,       ///< in the output; splitting it splits the work with no communication
    Reduction,      ///< inputs only; splitting it leaves the output partial
    LocalReduction, ///< softmax / norm axis; splitting it costs an all-reduce of statistics
    Halo,           ///< spatial conv axis; splitting it costs a halo exchange
    Gather,         ///< looked-up dimension of an embedding table; output partial, like a reduction
    Fixed,          ///< may not be split
};

/// The file name of `t`: "parallel", "reduction", "local", "halo", "gather", "fixed".
std::string_view factorTypeName(FactorType t);
/// Parses a factor type name; nullopt if unknown.
std::optional<FactorType> parseFactorType(std::string_view name);

/// One factor of a rule.
struct Factor {
    std::string name;
    std::int64_t size = 0;
    FactorType type = FactorType::Parallel;
};

/// The factors making up one tensor dimension, major to minor (indices into ShardingRule::factors).
using DimFactors = std::vector<int>;
/// The dimensions of one operand.
using OperandFactors = std::vector<DimFactors>;

/// A typed factor rule mapping operand dimensions to factors.
struct ShardingRule {
    std::vector<Factor> factors;
    std::vector<OperandFactors> inputs;
    std::vector<OperandFactors> outputs;

    /// Parses `text`; sizes and types in the trailing `{...}` are optional. Sizes left out are
    /// filled by bindShapes(); types left out default to parallel (in an output) or reduction.
    /// Throws InputError naming the problem.
    static ShardingRule parse(std::string_view text);

    /// Fills unknown factor sizes from the operand shapes and checks every dimension agrees.
    /// Returns an empty string on success, else a message naming the operand and dimension.
    std::string bindShapes(const std::vector<std::vector<std::int64_t>>& inputShapes,
                           const std::vector<std::vector<std::int64_t>>& outputShapes);

    /// The canonical text, `(...)->(...) {name=size[:type],...}`; parse(toString()) round-trips.
    std::string toString() const;

    /// Index of the factor called `name`, or -1.
    int findFactor(std::string_view name) const;
    /// True when factor `f` appears in some output.
    bool inOutput(int f) const;
    /// True when factor `f` appears in input operand `k`.
    bool inInput(std::size_t k, int f) const;
    /// True when factor `f` appears in some operand as a non-major part of a compound dimension,
    /// which makes it unsplittable.
    bool isMinorSomewhere(int f) const;
    /// True when `f` may be split at all (not fixed, not a minor part of a compound dimension).
    bool splittable(int f) const;
    /// Product of all factor sizes (the iteration space of the op).
    double iterationSpace() const;
};

} // namespace shardscope
