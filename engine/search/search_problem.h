#pragma once
// The search objective as tables (docs/DESIGN.md, Search): per op, its candidate strategies with a time and a
// memory each; per pair of connected ops, a table of edge times over both ends' candidates.
// Every algorithm minimises  sum_v unary[v][k_v] + sum_(u,v) pair[k_u][k_v]  over the choices k.

#include "engine/cost/cost_model.h"
#include "engine/pipeline/pipeline_weights.h"
#include "engine/cost/reshard_memo.h"
#include "engine/ir/repeated_blocks.h"

#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <tuple>
#include <vector>

namespace shardscope {

/// An edge-cost table between ops `a` < `b` (by OpId): entry [ka * K_b + kb]. Folded repeats of a
/// block share one table.
struct PairTable {
    int a = 0;
    int b = 0;
    std::shared_ptr<const std::vector<double>> values;

    /// The entries.
    const std::vector<double>& table() const { return *values; }
};

/// The pair tables of one graph split by pass (CostModel::EdgeTimes), before the recomputation
/// setting weighs them: pair table = passes(b) x intoB + passes(a) x intoA + backward, where passes
/// is CostModel::forwardPasses of the consumer. Every recomputation setting of one graph, mesh, pins
/// and folding shares them; folded repeats share one entry's vectors.
struct EdgeParts {
    struct Pair {
        int a = 0;
        int b = 0;
        std::shared_ptr<const std::vector<double>> intoB;     ///< forward, edges a -> b
        std::shared_ptr<const std::vector<double>> intoA;     ///< forward, edges b -> a (null if none)
        std::shared_ptr<const std::vector<double>> backward;  ///< every edge's gradient resharding
    };
    std::vector<Pair> pairs;
};

/// Every valid strategy of each op of one graph on one mesh (enumerateStrategies), enumerated once
/// and shared by the problems of every step setting of that graph. Not thread-safe.
class StrategyCache {
public:
    /// The valid strategies of op `o` of `graph` on `mesh` (the same graph and mesh on every call).
    const std::vector<OpStrategy>& of(const Graph& graph, OpId o, const Mesh& mesh);

private:
    std::vector<std::optional<std::vector<OpStrategy>>> byOp_;
};

/// Candidates and additive costs of one graph under one cost model.
class SearchProblem {
public:
    /// Builds the tables. An op with a pin in `pins` (indexed by OpId) has only the candidates it
    /// allows (a lock pins every axis: one candidate). Edges between the same two ops are merged into
    /// one table. With `folded`, the ops of blocks 3..L copy the tables of the same position in block 2
    /// instead of costing them again (they are identical by construction, pins included: the caller
    /// folds only block-periodic pins), which makes building sub-linear in the number of layers.
    /// Throws InputError naming the op when its pin allows no valid strategy.
    /// A stop request ends the build early; cancelled() then says so and the tables are incomplete.
    /// With Edges::Deferred only the op tables are built: enough for the bounds, and buildEdges() or
    /// shareEdges() adds the pair tables before a solve. `strategies`, when given, holds the ops'
    /// valid strategies for this graph and mesh across problems. `like`, when given, is a complete
    /// problem with the same pins, folding and strategies under other settings: the ops its model
    /// costs as this one does (CostModel::costsOpAs) take its tables instead of costing them again.
    /// `blocks`, on a pipelined mesh, are the graph's repeated blocks whose exits carry the stage sends
    /// (found here when neither they nor `folded` are given).
    enum class Edges { Build, Deferred };
    SearchProblem(std::shared_ptr<const CostModel> model, const std::vector<std::optional<StrategyPin>>& pins,
                  const RepeatedBlocks* folded = nullptr, std::stop_token stop = {}, Edges edges = Edges::Build,
                  StrategyCache* strategies = nullptr, const SearchProblem* like = nullptr,
                  const RepeatedBlocks* blocks = nullptr);

    /// Builds the pair tables of a problem made with Edges::Deferred.
    void buildEdges(std::stop_token stop = {});
    /// Takes the pair tables of `other`, a problem over the same graph, mesh, pins, folding and
    /// micro-batches: edge costs do not depend on ZeRO or the optimizer, and recomputation only
    /// changes how often the forward part runs (EdgeParts).
    void shareEdges(const SearchProblem& other);
    /// Builds the pair tables from `parts` of a problem over the same graph, mesh, pins and folding.
    void useEdgeParts(std::shared_ptr<const EdgeParts> parts);
    /// The pass-split pair tables once built (null before), to share with other recomputations.
    const std::shared_ptr<const EdgeParts>& edgeParts() const { return parts_; }
    /// True once the pair tables are there.
    bool hasEdges() const { return hasEdges_; }
    /// A lower bound on the step time of every choice: each op's fastest candidate, no resharding.
    double minStepTime() const;
    /// A lower bound on the peak memory of every choice: each op's smallest candidate.
    double minPeakMemory() const;
    /// A lower bound on the step time of every choice whose peak memory fits `capacity`, with no edge
    /// tables: max over weights lambda >= 0 of  sum_v min_k (time + lambda memory)(v, k) - lambda C',
    /// C' = capacity less the least transient buffer (a choice that fits keeps its additive memory
    /// within C'; edges cost >= 0, so weak duality holds per lambda). Infinity when nothing fits.
    /// Example: two ops with candidates (1 s, 8 GB) or (3 s, 2 GB) each, C' = 10 GB: every choice
    /// that fits takes one small candidate; at lambda = 1/3 s/GB the bound is 2 x 11/3 - 10/3 = 4 s,
    /// where minStepTime() says 2 s.
    double fittingLowerBound(double capacity) const;
    /// sum_v min_k [(time + lambda memory)(v, k) - other's] for `other` with the same candidates: the
    /// optimum of objective(., lambda) here is at least other's plus this, when every edge costs at
    /// least what it costs in other (lambda 0: step times).
    double minIncrease(const SearchProblem& other, double lambda) const;
    /// True when `other`, over the same graph, mesh, pins, micro-batches and recomputation (so the same
    /// edges), has the same candidates and every op no slower and no larger under each: then every
    /// choice is at least as fast and as small there, and this problem need not be solved.
    /// Example: ZeRO-1 against ZeRO-0 when the reduce-scatter plus all-gather costs what the
    /// all-reduce did: the sharded optimizer states only shrink memory and optimizer time.
    bool noBetterThan(const SearchProblem& other) const;
    /// Frees the pair tables (the op tables stay, for bounds).
    void dropEdges();

    /// True when the build was stopped before it finished.
    bool cancelled() const { return cancelled_; }

    /// Number of ops (variables).
    int size() const { return static_cast<int>(ops_.size()); }
    /// Candidate strategies of op `v`.
    const std::vector<OpStrategy>& candidates(int v) const { return op(v).candidates; }
    /// Number of candidates of op `v`.
    int choices(int v) const { return static_cast<int>(op(v).candidates.size()); }
    /// Step time of op `v` under candidate `k` (its own compute, collectives, optimizer).
    double time(int v, int k) const { return op(v).time[static_cast<std::size_t>(k)]; }
    /// Memory per device of op `v` under candidate `k` (its additive memory terms).
    double memory(int v, int k) const { return op(v).memory[static_cast<std::size_t>(k)]; }
    /// Every pair table.
    const std::vector<PairTable>& pairs() const { return pairs_; }
    /// The additive objective of `choice` with memory weighted by `lambda` (seconds per byte).
    double objective(const std::vector<int>& choice, double lambda) const;
    /// The step time of `choice` (objective with lambda = 0).
    double stepTime(const std::vector<int>& choice) const { return objective(choice, 0); }
    /// The additive memory of `choice`.
    double memoryOf(const std::vector<int>& choice) const;
    /// Peak memory per device of `choice`: the additive terms plus the largest transient buffer, as
    /// evaluate() computes it.
    double peakMemory(const std::vector<int>& choice) const;
    /// The number of assignments, as a double (it overflows integers quickly).
    double spaceSize() const;
    /// The repeated blocks the tables were folded over, or null.
    const RepeatedBlocks* folded() const { return folded_; }
    /// The cost model the tables came from.
    const CostModel& model() const { return *model_; }

private:
    /// One op's candidates and their costs; folded repeats share one.
    struct OpTables {
        std::vector<OpStrategy> candidates;
        std::vector<double> time, memory, transient;
    };
    const OpTables& op(int v) const { return *ops_[static_cast<std::size_t>(v)]; }
    /// What an edge's times depend on: tensor bytes, whether it has a gradient, and its distinct ends.
    using EdgeKey = std::tuple<double, bool, bool, std::vector<CostModel::ProducerEnd>, std::vector<CostModel::ConsumerEnd>>;
    /// Times of every pair of distinct ends, per key, within one build, and the reshardings they took.
    struct EdgeCache {
        std::map<EdgeKey, std::vector<CostModel::EdgeTimes>> byKey;
        ReshardMemo reshardings;
    };
    /// Adds edge `e`'s forward and backward times into tables of its op pair (a, b), a < b, laid out
    /// [candidate of a][candidate of b].
    void addEdgeTables(const Edge& e, EdgeCache& cache, std::vector<double>& forward, std::vector<double>& backward) const;
    /// pairs_ from parts_, weighing the forward parts by this model's recomputation.
    void combineParts();

    std::shared_ptr<const CostModel> model_;
    PipelineWeights weights_;           ///< how the sums stand for a pipelined step (all 1 without)
    const RepeatedBlocks* folded_ = nullptr;
    std::vector<std::shared_ptr<const OpTables>> ops_;
    bool cancelled_ = false;
    bool hasEdges_ = false;
    std::vector<std::size_t> source_;   ///< per op, the op whose tables it shares
    std::vector<int> copies_;           ///< per op owning its tables, the ops sharing them (itself too); else 0
    std::vector<PairTable> pairs_;
    std::shared_ptr<const EdgeParts> parts_;
};

} // namespace shardscope
