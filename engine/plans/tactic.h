#pragma once
// Tactics (docs/DESIGN.md, Tactics): named decisions that build a plan step by step, kept apart from the
// model. A plan made by tactics records them, with the figures after each step.

#include "engine/search/search_algorithm.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class TacticKind { Batch, Megatron, Sequence, Zero, Expert, Shard, Auto };

/// "batch", "megatron", "sequence", "zero", "expert", "shard", "auto".
std::string_view tacticKindName(TacticKind k);
/// Parses a tactic name; nullopt if unknown.
std::optional<TacticKind> parseTacticKind(std::string_view name);
/// Every tactic name, for messages.
std::vector<std::string_view> tacticKindNames();

/// One tactic and its arguments. Order matters: a decision stands once made, so `expert(data)` goes
/// before `batch(data)` when both use one axis (else batch's spread reaches the experts first).
struct Tactic {
    TacticKind kind = TacticKind::Batch;
    std::string axis;                   ///< mesh axis; for auto, empty means every axis
    std::vector<std::string> inputs;    ///< batch: model inputs (names or globs); empty = every input
    std::vector<std::string> tensors;   ///< shard: tensor names or globs
    int dim = 0;                        ///< shard: the dimension split
    int stage = 0;                      ///< zero: 1 optimizer state, 2 + gradients, 3 + parameters
    SearchAlgorithm algorithm = SearchAlgorithm::Auto; ///< auto: the search algorithm

    /// A short form: "batch(data)", "zero(3, data)", "shard(layers.*.fc1.weight, 1, model)".
    std::string toString() const;

    bool operator==(const Tactic&) const = default;
};

/// The plan's figures after one tactic.
struct TacticStep {
    std::string tactic;                    ///< Tactic::toString()
    double stepTime = 0;                   ///< simulated (overlap on)
    double analyticStepTime = 0;
    double peakMemory = 0;
    bool feasible = true;
    std::map<std::string, int> collectivesAdded; ///< per collective kind, occurrences per step gained (or lost)
    std::vector<std::string> conflicts;    ///< each names both decisions and their sources
    std::vector<std::string> notes;        ///< tensors skipped, ops decided, ...
    int decidedAxes = 0;                   ///< (op, axis) pairs decided so far
};

} // namespace shardscope
