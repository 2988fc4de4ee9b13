#pragma once
// The analytic cost model (docs/DESIGN.md, Costs): a cost per op given its strategy plus a cost per edge
// given both ends' strategies. Every search and the evaluator use exactly these two functions, so
// the objective is additive.

#include "engine/cluster/cluster.h"
#include "engine/cost/collectives.h"
#include "engine/cost/cost_terms.h"
#include "engine/cost/graph_facts.h"
#include "engine/cost/saved_activations.h"
#include "engine/cost/step_settings.h"
#include "engine/ir/graph.h"
#include "engine/sharding/strategy.h"

#include <memory>
#include <vector>

namespace shardscope {

/// Costs of ops and edges for one graph, cluster, mesh and step settings.
/// Assumes the graph is finalized and the mesh fits the cluster. Shares (never copies) the graph and
/// cluster it is given, so that a model, and every search table and evaluation made from it, can
/// outlive whoever loaded them. Immutable: share it as shared_ptr<const CostModel>.
class CostModel {
public:
    /// Precomputes collective spans, edges and which tensors need gradients.
    CostModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
              const StepSettings& settings);
    /// The same on copies of `graph` and `cluster`: for one-off models of values the caller owns.
    CostModel(const Graph& graph, const Cluster& cluster, const Mesh& mesh, const StepSettings& settings);
    /// The same, with the collective spans of `comm` (built for this cluster and mesh), so that the
    /// models of many settings on one mesh compute them once.
    CostModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
              const StepSettings& settings, const CommModel& comm);
    /// The same for the graph `facts` analysed, sharing that analysis with the models of other meshes.
    CostModel(std::shared_ptr<const GraphFacts> facts, std::shared_ptr<const Cluster> cluster, const Mesh& mesh,
              const StepSettings& settings, const CommModel& comm);
    /// A model of `like`'s graph, cluster and mesh under other settings, reusing its spans and its
    /// graph's analysis.
    CostModel(const CostModel& like, const StepSettings& settings);

    /// Cost of op `o` under strategy `s`: compute, its own collectives (statistics, halo, gradient
    /// sync and ZeRO traffic of the parameters it owns), optimizer, memory.
    ///
    /// With StepSettings::overlap each gradient synchronisation and each ZeRO-3 gather hides behind
    /// one micro-batch's compute of its own op (CollectiveCost::hidden): a bucket of an op's gradients
    /// is reduced while the backward of the op before it runs, and a gather is prefetched while the op
    /// before it runs; in a stack of repeated blocks that op costs what this one costs. Example: a
    /// 4096 x 16384 bf16 weight (134 MB) all-reduced over 64 data-parallel GPUs at 25 GB/s takes
    /// 2 * 63/64 * 134e6 / 25e9 = 10.6 ms; behind a backward of 12 ms per micro-batch none of it is
    /// exposed, behind 4 ms 6.6 ms is. Step-time ZeRO-1/2 gathers and the last bucket's wait stay
    /// exposed, as in the simulator.
    OpCost opCost(OpId o, const OpStrategy& s) const;
    /// True when opCost(o, s) is the same here and in `other` for every strategy s: the same graph,
    /// cluster, mesh and micro-batches, and the settings that differ do not reach op `o`. ZeRO and the
    /// optimizer reach only the ops that own a parameter; recomputation reaches an op when it changes
    /// whether the op is recomputed or what it keeps (saved_activations.h). Example: a softmax under
    /// ZeRO 0 and ZeRO 3; the embedding under no and full recomputation.
    bool costsOpAs(OpId o, const CostModel& other) const;
    /// Cost of edge `e` given the strategies of its two ends: forward and backward resharding.
    EdgeCost edgeCost(const Edge& e, const OpStrategy& from, const OpStrategy& to) const;

    /// What an edge's producer end gives: the tensor's sharding, and the sharding it wants the
    /// gradient back in. edgeCost() depends on the producer's strategy only through this.
    struct ProducerEnd {
        TensorSharding value;
        TensorSharding gradient;
        double window = 0;   ///< seconds per micro-batch of the producer's GEMM the forward resharding hides behind
        double backwardWindow = 0; ///< and of its backward GEMMs, for the gradient's resharding (TpOverlap::Full)
        auto operator<=>(const ProducerEnd&) const = default;
    };
    /// What an edge's consumer end wants (the sharding it reads) and gives back (its input gradient).
    struct ConsumerEnd {
        TensorSharding value;
        TensorSharding gradient;
        double window = 0;          ///< the same for the consumer's GEMM in the forward
        double backwardWindow = 0;  ///< and in the backward (the gradient's resharding, re-gathers)
        auto operator<=>(const ConsumerEnd&) const = default;
    };
    /// Seconds per micro-batch of GEMM a resharding can hide behind (StepSettings::tpOverlap), in each pass.
    struct OverlapWindows {
        double forward = 0;
        double backward = 0;
    };
    /// The windows between two ends: the producer's and the consumer's forward GEMM for the forward
    /// resharding, the consumer's and (TpOverlap::Full) the producer's backward GEMMs for the
    /// backward's. Zero without tpOverlap.
    static OverlapWindows windows(const ProducerEnd& from, const ConsumerEnd& to) {
        return OverlapWindows{from.window + to.window, to.backwardWindow + from.backwardWindow};
    }
    /// True when op `o` is a linear layer (a contraction with a weight) and tensor-parallel overlap is
    /// on: the reshardings into and out of it run chunked beside its GEMMs (TpOverlap::Full:
    /// Megatron-Core's --tp-comm-overlap, PyTorch async TP; Wang et al. 2023), or only the backward's
    /// beside its backward GEMMs (TpOverlap::Backward). Example: under megatron-sp with Full the
    /// all-gather of the sequence shards into the QKV projection and the reduce-scatter out of the
    /// attention output projection each take max(collective, GEMM) instead of their sum.
    bool hidesTensorParallelComm(OpId o) const;
    /// The producer end of `e` under strategy `from`.
    ProducerEnd producerEnd(const Edge& e, const OpStrategy& from) const;
    /// The consumer end of `e` under strategy `to`.
    ConsumerEnd consumerEnd(const Edge& e, const OpStrategy& to) const;
    /// Cost of edge `e` between two ends; edgeCost(e, f, t) == edgeCost(e, producerEnd(e, f), consumerEnd(e, t)).
    EdgeCost edgeCost(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const;
    /// Seconds per step of edge `e` between two ends: edgeCost(e, from, to).time(), without the breakdown.
    double edgeTime(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const;
    /// An edge's time by how often it runs: `forward` per forward pass of the consumer, `backward` once,
    /// whatever the recomputation. The gradient's resharding is backward. When the consumer reads the
    /// input in its backward (keepsProducerSharding), the tensor is kept as the producer made it and
    /// the all-gathers of the forward resharding run again in the backward unless the consumer is
    /// recomputed (then the whole resharding runs again): with g the gather part of forward
    /// resharding f, forward = f - g and backward += 2g. edgeTime() == forwardPasses(e.to) * forward +
    /// backward, so the parts are the same under every recomputation setting and only
    /// forwardPasses() of the consumer changes.
    struct EdgeTimes {
        double forward = 0;
        double backward = 0;
    };
    /// edgeTime() split by pass.
    EdgeTimes edgeTimes(const Edge& e, const ProducerEnd& from, const ConsumerEnd& to) const;
    /// Seconds per step of resharding a tensor of `bytes` from `from` to `to` once per micro-batch,
    /// with its all-gather steps' share.
    ReshardTime reshardTime(const TensorSharding& from, const TensorSharding& to, double bytes) const;
    /// The parts of edgeTimes() from its reshardings' times: `forward` from producer to consumer,
    /// `gradient` back (its seconds alone count), each part less what hides behind `windows` (per
    /// micro-batch, so m times that per step), never below zero. `keepsProducer` is
    /// keepsProducerSharding() of the edge (the same for every pair of its ends).
    EdgeTimes edgeParts(bool keepsProducer, const ReshardTime& forward, double gradient,
                        const OverlapWindows& windows) const;
    /// How often the forward reshardings into `consumer` run per micro-batch: 2 when it is recomputed.
    int forwardPasses(OpId consumer) const { return recomputed(consumer) ? 2 : 1; }
    /// True when the consumer of `e` reads the edge's tensor in its backward, so that the tensor is kept
    /// at the producer's sharding and the forward resharding runs twice (edgeTimes).
    bool keepsProducerSharding(const Edge& e) const;
    /// True when op `o` is recomputed in the backward under these settings (its forward resharding
    /// runs again and it keeps nothing of its own).
    bool recomputed(OpId o) const;
    /// True when op `o` runs inside the fused attention kernel.
    bool fusedAttention(OpId o) const;
    /// True when op `o` runs its GEMMs in FP8 under these settings (fp8_gemms.h).
    bool fp8Gemm(OpId o) const;
    /// True when the backward runs op `o`'s forward compute again: recomputed(), except that the fused
    /// kernel recomputes only the ops whose outputs stay inside the attention core.
    bool recomputesCompute(OpId o) const;
    /// What each op keeps from forward to backward under these settings.
    const SavedActivations& saved() const { return *saved_; }

    /// Every edge, ordered by consumer in topological order.
    const std::vector<Edge>& edges() const { return facts_->edges(); }
    /// Whether tensor `t` receives a gradient in the backward pass.
    bool needsGradient(TensorId t) const { return facts_->needsGradient()[t.index()]; }
    /// Backward FLOPs of op `o` for the whole micro-batch: a contraction costs one forward per input
    /// that needs a gradient (dX and dW); other ops one forward; ops with no gradient input nothing.
    double backwardFlops(OpId o) const;
    /// Compute seconds on one device for `flops` and `bytes` of memory traffic in `dtype`.
    double computeSeconds(double flops, double bytes, DType dtype) const;

    /// The graph costed.
    const Graph& graph() const { return *graph_; }
    /// The cluster costed on.
    const Cluster& cluster() const { return *cluster_; }
    /// The mesh strategies refer to.
    const Mesh& mesh() const { return mesh_; }
    /// The step settings (micro-batches, recomputation, optimizer, ZeRO).
    const StepSettings& settings() const { return settings_; }
    /// Collective costs on this cluster and mesh.
    const CommModel& comm() const { return comm_; }

private:
    CollectiveCost collective(CollectiveKind kind, AxisSet axes, double bytes, int count, Phase phase,
                              CommPurpose purpose, TensorId tensor) const;
    void addParameterCosts(OpId o, std::size_t k, const OpStrategy& s, OpCost& cost) const;
    void hideBehindCompute(OpCost& cost) const;
    /// One micro-batch's compute seconds of an op, and the bytes of its outputs.
    struct ComputeTimes {
        double forward = 0, backward = 0, recompute = 0, outputBytes = 0;
        double workspaceBytes = 0; ///< a kernel's working copy beside its output (the loss's FP32 logits)
    };
    ComputeTimes computeTimes(OpId o, const OpStrategy& s) const;
    /// One micro-batch of an FP8 GEMM (fp8Gemm): forward and backward seconds with their casts.
    struct Fp8Gemm {
        double forward = 0, backward = 0;
    };
    Fp8Gemm fp8GemmTimes(OpId o, const OpStrategy& s, double flops, double bytes, double parts, int gradInputs) const;
    void addSavedActivations(OpId o, const OpStrategy& s, OpCost& cost) const;
    double savedBytes(OpId o, const SavedByOp& saved, const OpStrategy& s) const;

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const Cluster> cluster_;
    Mesh mesh_;
    StepSettings settings_;
    CommModel comm_;
    std::shared_ptr<const GraphFacts> facts_;            ///< shared by the models of every mesh and setting
    std::shared_ptr<const std::vector<bool>> fp8_;       ///< per op: fp8Gemm; empty under BF16
    std::shared_ptr<const SavedActivations> saved_;      ///< shared where recomputation, attention, precision agree
};

} // namespace shardscope
