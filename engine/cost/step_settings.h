#pragma once
// Settings of one training step (docs/DESIGN.md, One training step): micro-batches, recomputation, optimizer, ZeRO.

#include "engine/cluster/mesh.h"
#include "engine/cost/precision.h"

#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

enum class Recompute { None, Selective, Full };
enum class OptimizerKind { Adam, Sgd };
/// How the attention core runs: one fused kernel (FlashAttention: no s x s tensor in memory, its
/// scores recomputed inside the backward kernel) or as separate ops (matmul, softmax, dropout, matmul).
enum class AttentionKernel { Fused, Unfused };
/// Which tensor-parallel reshardings run beside the GEMMs of a linear layer: none; the backward's
/// (Megatron-LM's async input-gradient all-reduce beside the weight-gradient GEMM,
/// linear_with_grad_accumulation_and_async_allreduce, and with sequence parallelism its backward
/// all-gather and reduce-scatter); or every one, forward too (Megatron-Core --tp-comm-overlap,
/// PyTorch async TP).
enum class TpOverlap { Off, Backward, Full };
/// How the cross-entropy over the logits runs (loss_traffic.h): op by op in FP32 (Megatron-LM's
/// default, torchtitan) or as Transformer Engine's fused kernel (Megatron's
/// --cross-entropy-loss-fusion with the "te" implementation, Megatron-Bridge's recipes).
enum class LossKernel { Unfused, Fused };

/// How micro-batches flow through pipeline stages (docs/DESIGN.md, Pipelining): all forwards then all
/// backwards (GPipe), one forward one backward in the steady state (1F1B, PipeDream-Flush, Megatron's
/// default), or 1F1B over V model chunks per device (Megatron's interleaved schedule). With m
/// micro-batches and P balanced stages the bubble is (P-1)/(m+P-1) of the step for GPipe and 1F1B
/// and (P-1)/(V m+P-1) interleaved.
enum class Schedule { OneFOneB, GPipe, Interleaved };

/// "none", "selective", "full".
std::string_view recomputeName(Recompute r);
/// Parses a recompute name; nullopt if unknown.
std::optional<Recompute> parseRecompute(std::string_view name);
/// "fused", "unfused".
std::string_view attentionName(AttentionKernel a);
/// Parses an attention kernel name; nullopt if unknown.
std::optional<AttentionKernel> parseAttention(std::string_view name);
/// "off", "backward", "full".
std::string_view tpOverlapName(TpOverlap t);
/// Parses a tensor-parallel overlap name ("on" is "full"); nullopt if unknown.
std::optional<TpOverlap> parseTpOverlap(std::string_view name);
/// "unfused", "fused".
std::string_view lossName(LossKernel l);
/// Parses a loss kernel name; nullopt if unknown.
std::optional<LossKernel> parseLoss(std::string_view name);
/// "1f1b", "gpipe", "interleaved".
std::string_view scheduleName(Schedule s);
/// Parses a schedule name; nullopt if unknown.
std::optional<Schedule> parseSchedule(std::string_view name);
/// "adam", "sgd".
std::string_view optimizerName(OptimizerKind o);
/// Parses an optimizer name; nullopt if unknown.
std::optional<OptimizerKind> parseOptimizer(std::string_view name);

/// The bucket sizes accepted from files and the command line, in MB (StepSettings::bucketBytes).
constexpr double kMinBucketMb = 0.001;
constexpr double kMaxBucketMb = 1e5;

/// What a step does besides the graph's forward: the graph is one micro-batch.
struct StepSettings {
    int microbatches = 1;                      ///< gradient-accumulation steps per optimizer step
    Recompute recompute = Recompute::None;
    OptimizerKind optimizer = OptimizerKind::Adam; ///< Adam keeps fp32 master weights, m and v
    int zeroStage = 0;                         ///< 0 none; 1 optimizer state; 2 + gradients; 3 + parameters
    AxisSet zeroAxes = 0;                      ///< axes over which ZeRO shards parameter storage
    AttentionKernel attention = AttentionKernel::Fused; ///< what every current framework runs
    Precision precision = Precision::BF16;     ///< the linear layers' GEMMs in BF16, FP8 or MXFP8
    LossKernel loss = LossKernel::Unfused;     ///< the frameworks' default cross-entropy
    /// Gradient synchronisation runs in buckets behind the backward (PyTorch DDP and FSDP, Megatron's
    /// --overlap-grad-reduce) and parameter gathers behind compute (FSDP prefetch, ZeRO-3, Megatron's
    /// --overlap-param-gather): each collective hides behind its op's own compute (cost_model.h).
    bool overlap = true;
    /// Tensor-parallel resharding hides behind the GEMM that produces or consumes it (TpOverlap);
    /// off by default: the forward's is opt-in in both frameworks.
    TpOverlap tpOverlap = TpOverlap::Off;
    /// Parameter collectives (gradient reductions, ZeRO gathers) coalesce into buckets of this many
    /// bytes, as PyTorch DDP (bucket_cap_mb, 25 MB by default), FSDP (one flat parameter per unit) and
    /// Megatron's distributed optimizer do: a bucket of small tensors pays its latencies once
    /// (CommModel::coalescedTime), and the simulator reduces gradients bucket by bucket.
    double bucketBytes = 25e6;
    /// With a pipe axis: the pipeline schedule, and the model chunks per device (V, interleaved only).
    Schedule schedule = Schedule::OneFOneB;
    int virtualStages = 1;

    bool operator==(const StepSettings&) const = default;
};

} // namespace shardscope
