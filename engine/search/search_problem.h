#pragma once
// The search objective as tables (DESIGN 2.5): per op, its candidate strategies with a time and a
// memory each; per pair of connected ops, a table of edge times over both ends' candidates.
// Every algorithm minimises  sum_v unary[v][k_v] + sum_(u,v) pair[k_u][k_v]  over the choices k.

#include "engine/cost/cost_model.h"
#include "engine/search/repeated_blocks.h"

#include <optional>
#include <vector>

namespace shardscope {

/// An edge-cost table between ops `a` < `b` (by OpId): entry [ka * K_b + kb].
struct PairTable {
    int a = 0;
    int b = 0;
    std::vector<double> table;
};

/// Candidates and additive costs of one graph under one cost model.
class SearchProblem {
public:
    /// Builds the tables. An op with a lock in `locks` (indexed by OpId) has that one candidate.
    /// Edges between the same two ops are merged into one table. With `folded`, the ops of blocks 3..L
    /// copy the tables of the same position in block 2 instead of costing them again (they are
    /// identical by construction), which makes building sub-linear in the number of layers.
    /// Throws InputError when a lock is not a valid strategy of its op.
    SearchProblem(const CostModel& model, const std::vector<std::optional<OpStrategy>>& locks,
                  const RepeatedBlocks* folded = nullptr);

    /// Number of ops (variables).
    int size() const { return static_cast<int>(candidates_.size()); }
    /// Candidate strategies of op `v`.
    const std::vector<OpStrategy>& candidates(int v) const { return candidates_[static_cast<std::size_t>(v)]; }
    /// Number of candidates of op `v`.
    int choices(int v) const { return static_cast<int>(candidates_[static_cast<std::size_t>(v)].size()); }
    /// Step time of op `v` under candidate `k` (its own compute, collectives, optimizer).
    double time(int v, int k) const { return time_[static_cast<std::size_t>(v)][static_cast<std::size_t>(k)]; }
    /// Memory per device of op `v` under candidate `k` (its additive memory terms).
    double memory(int v, int k) const { return memory_[static_cast<std::size_t>(v)][static_cast<std::size_t>(k)]; }
    /// Every pair table.
    const std::vector<PairTable>& pairs() const { return pairs_; }
    /// The additive objective of `choice` with memory weighted by `lambda` (seconds per byte).
    double objective(const std::vector<int>& choice, double lambda) const;
    /// The step time of `choice` (objective with lambda = 0).
    double stepTime(const std::vector<int>& choice) const { return objective(choice, 0); }
    /// The additive memory of `choice`.
    double memoryOf(const std::vector<int>& choice) const;
    /// The number of assignments, as a double (it overflows integers quickly).
    double spaceSize() const;
    /// The repeated blocks the tables were folded over, or null.
    const RepeatedBlocks* folded() const { return folded_; }
    /// The cost model the tables came from.
    const CostModel& model() const { return model_; }

private:
    std::vector<double> edgeTable(const Edge& e) const;

    const CostModel& model_;
    const RepeatedBlocks* folded_ = nullptr;
    std::vector<std::vector<OpStrategy>> candidates_;
    std::vector<std::vector<double>> time_;
    std::vector<std::vector<double>> memory_;
    std::vector<PairTable> pairs_;
};

} // namespace shardscope
