// The analytic cost model on hand-checkable cases: compute of one op, Megatron's collectives on a
// GPT block, data-parallel gradient synchronisation, sequence parallelism, memory and ZeRO.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/cost/attention_head_rate.h"
#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/cost/reshard_memo.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"
#include "engine/sharding/strategy.h"

#include <cmath>
#include <map>

using namespace shardscope;

namespace {

struct Setup {
    Graph graph;
    Cluster cluster;
    Mesh mesh;
    Plan plan;
    std::unique_ptr<CostModel> model;
    std::shared_ptr<const Evaluation> eval;

    Setup(const std::string& modelName, std::vector<std::string> sets, int nodes, const std::string& meshText,
          const std::string& strategy, StepSettings settings = {})
        : graph(loadModel(ModelRequest{modelName, std::move(sets), std::nullopt}, settings.microbatches)),
          cluster(clusterPreset("dgx-a100", nodes)), mesh(Mesh::parse(meshText)),
          plan(baselinePlan(graph, mesh, strategy, settings)) {
        model = std::make_unique<CostModel>(graph, cluster, mesh, plan.settings);
        eval = evaluate(*model, plan);
    }
    const OpReport& op(const std::string& name) const { return eval->perOp[graph.findOp(name)->index()]; }
};

/// Counts (kind, phase) of resharding collectives over `axes` in ops whose block is `block`.
std::map<std::pair<CollectiveKind, Phase>, int> reshardCounts(const Setup& s, const std::string& block, AxisSet axes,
                                                             std::vector<double>* bytes = nullptr) {
    std::map<std::pair<CollectiveKind, Phase>, int> counts;
    for (const OpReport& r : s.eval->perOp) {
        if (s.graph.op(r.op).block.rfind(block, 0) != 0)
            continue;
        for (const CollectiveCost& c : r.collectives)
            if (c.purpose == CommPurpose::Resharding && c.axes == axes) {
                ++counts[{c.kind, c.phase}];
                if (bytes)
                    bytes->push_back(c.bytes);
            }
    }
    return counts;
}

/// The gpt preset (2 layers, s 1024, h 1024, f 4096, `batch`, with `extra` settings) data-parallel over
/// one node of `cluster`, costed in `precision`.
struct PrecisionSetup {
    Graph graph;
    Cluster cluster;
    Mesh mesh = Mesh::parse("data=8");
    Plan plan;
    std::unique_ptr<CostModel> model;
    std::shared_ptr<const Evaluation> eval;

    PrecisionSetup(Cluster c, Precision precision, const std::string& strategy = "dp", int batch = 8,
                   std::vector<std::string> extra = {})
        : graph(loadModel(ModelRequest{"gpt", withBatch(std::move(extra), batch), std::nullopt}, 1)),
          cluster(std::move(c)) {
        StepSettings settings;
        settings.precision = precision;
        plan = baselinePlan(graph, mesh, strategy, settings);
        model = std::make_unique<CostModel>(graph, cluster, mesh, plan.settings);
        eval = evaluate(*model, plan);
    }
    static std::vector<std::string> withBatch(std::vector<std::string> sets, int batch) {
        sets.push_back("batch=" + std::to_string(batch));
        return sets;
    }
    OpId id(const std::string& name) const { return *graph.findOp(name); }
    OpCost cost(const std::string& name) const { return model->opCost(id(name), plan.ops[id(name).index()].strategy); }
    const OpReport& op(const std::string& name) const { return eval->perOp[id(name).index()]; }
};

} // namespace

class TestCostModel : public QObject {
    Q_OBJECT
private slots:
    void computeOfOneLinearByHand() {
        // gpt preset, dp over 8 A100s: fc1 of layer 0 has b = 8/8 = 1, s = 1024, h = 1024, f = 4096.
        // FLOPs 2 b s h f = 8.59e9 at 312e12 x 0.6517 (the preset's GEMM efficiency) = 42.2 us
        // (compute-bound: 18.9 MB at 2 TB/s is 9.4 us). Backward computes dX and dW: twice that.
        Setup s("gpt", {}, 1, "data=8", "dp");
        const OpCost c = s.model->opCost(*s.graph.findOp("layers.0.mlp.fc1"),
                                         s.plan.ops[s.graph.findOp("layers.0.mlp.fc1")->index()].strategy);
        const double flops = 2.0 * 1 * 1024 * 1024 * 4096;
        QCOMPARE(c.forward, flops / (312e12 * 0.6517));
        QCOMPARE(c.backward, 2 * flops / (312e12 * 0.6517));
        // Its weight's gradient all-reduce over 8 GPUs, coalesced into a 25 MB bucket: its share S / 25 MB
        // of one ring all-reduce of the bucket, base + 2 (n-1)/n B / bw + 2 (n-1) a, with the preset's
        // achieved NVLink bandwidth (300 GB/s x 0.775), 1.75 us per ring step and 15.26 us per collective.
        const double S = 1024.0 * 4096 * 2, bucket = 25e6;
        QCOMPARE(c.collectives.size(), std::size_t(1));
        QCOMPARE(c.collectives[0].time,
                 S / bucket * (15.26e-6 + 2.0 * 7 / 8 * bucket / (300e9 * 0.775) + 2 * 7 * 1.75e-6));
    }
    void megatronBlockHasTwoForwardAndTwoBackwardAllReduces() {
        // One GPT block on a 2-way model axis: attention output and FC2 all-reduce forward; the inputs
        // of QKV and FC1 all-reduce their gradients backward. Each moves the activation b s h x 2 bytes
        // with b = 8 / 4 data ranks.
        Setup s("gpt", {"layers=1"}, 1, "data=4,model=2", "megatron");
        std::vector<double> bytes;
        const auto counts = reshardCounts(s, "layers.0", axisBit(AxisId(1)), &bytes);
        const std::map<std::pair<CollectiveKind, Phase>, int> expected{
            {{CollectiveKind::AllReduce, Phase::Forward}, 2}, {{CollectiveKind::AllReduce, Phase::Backward}, 2}};
        QCOMPARE(counts, expected);
        for (double b : bytes)
            QCOMPARE(b, 2.0 * 1024 * 1024 * 2);
    }
    void dataParallelHasOnlyGradientAllReduces() {
        Setup s("gpt", {"layers=2"}, 1, "data=8", "dp");
        int gradientSyncs = 0;
        for (const OpReport& r : s.eval->perOp)
            for (const CollectiveCost& c : r.collectives) {
                QVERIFY2(c.phase == Phase::Step, s.graph.tensor(c.tensor).name.c_str());
                QCOMPARE(c.kind, CollectiveKind::AllReduce);
                QCOMPARE(c.purpose, CommPurpose::GradientSync);
                QCOMPARE(c.bytes, s.graph.tensor(c.tensor).bytes());
                ++gradientSyncs;
            }
        int parameters = 0;
        for (const Tensor& t : s.graph.tensors())
            parameters += t.role == TensorRole::Parameter ? 1 : 0;
        QCOMPARE(gradientSyncs, parameters);
    }
    void sequenceParallelReplacesAllReducesWithPairs() {
        Setup s("gpt", {"layers=1"}, 1, "data=4,model=2", "megatron-sp");
        // Korthikanti et al. 2022, 4.2.2: per layer an all-gather and a reduce-scatter around each of
        // attention and MLP forward; backward the gradients' reverse pair, plus the all-gather again
        // of each column-parallel linear's input, which is kept as the sequence shard.
        const auto counts = reshardCounts(s, "layers.0", axisBit(AxisId(1)));
        const std::map<std::pair<CollectiveKind, Phase>, int> expected{
            {{CollectiveKind::ReduceScatter, Phase::Forward}, 2}, {{CollectiveKind::AllGather, Phase::Forward}, 2},
            {{CollectiveKind::ReduceScatter, Phase::Backward}, 2}, {{CollectiveKind::AllGather, Phase::Backward}, 4}};
        QCOMPARE(counts, expected);
    }
    void expertsSplitOverTheTokenAxisMakeAllToAlls() {
        // docs/DESIGN.md, One training step: tokens split over data and experts over the same axis: dispatch and combine are
        // all-to-alls. Start from dp and split the expert ops' e over data.
        Setup s("moe", {"layers=1"}, 1, "data=8", "dp");
        for (const char* name : {"layers.0.moe.experts.gate_up", "layers.0.moe.experts.swiglu", "layers.0.moe.experts.down"}) {
            const OpId o = *s.graph.findOp(name);
            s.plan.ops[o.index()].strategy.factorOfAxis[0] = s.graph.op(o).rule.findFactor("e");
        }
        QVERIFY(s.plan.verify(s.graph).empty());
        s.eval = evaluate(*s.model, s.plan);
        const auto counts = reshardCounts(s, "layers.0.moe", axisBit(AxisId(0)));
        const std::map<std::pair<CollectiveKind, Phase>, int> expected{
            {{CollectiveKind::AllToAll, Phase::Forward}, 2}, {{CollectiveKind::AllToAll, Phase::Backward}, 2}};
        QCOMPARE(counts, expected);
    }
    void stepTimeIsTheSumOfItsParts() {
        // The search's objective sums the per-op figures; the analytic step composes them by the
        // streams and is its compute, exposed communication and optimizer.
        Setup s("llama", {}, 1, "data=4,model=2", "megatron");
        double compute = 0, comm = 0, opt = 0;
        for (const OpReport& r : s.eval->perOp) {
            compute += r.computeTime + r.slowdownTime;
            opt += r.optimizerTime;
            for (const CollectiveCost& c : r.collectives)
                comm += (c.time - c.hidden) * c.count;
        }
        QCOMPARE(s.eval->objective, compute + comm + opt);
        QCOMPARE(s.eval->stepTime,
                 s.eval->computeTime + s.eval->slowdownTime + s.eval->exposedCommTime + s.eval->optimizerTime);
        QVERIFY(s.eval->exposedCommTime < s.eval->commTime);
    }
    void tensorParallelOverlapHidesReshardingBehindTheGemm_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("backward") << int(TpOverlap::Backward);
        QTest::newRow("full") << int(TpOverlap::Full);
    }
    void tensorParallelOverlapHidesReshardingBehindTheGemm() {
        QFETCH(int, mode);
        const bool full = TpOverlap(mode) == TpOverlap::Full;
        // megatron-sp on 8 GPUs, 2 micro-batches: the all-gather into each column-parallel linear
        // and the reduce-scatter out of each row-parallel one run beside the GEMM, so an edge costs
        // max(0, forward - m (producer GEMM + consumer GEMM)) + max(0, gradient - m (consumer backward
        // GEMM + with full overlap the producer's: a row-parallel layer's output-gradient all-gather
        // runs beside its own backward GEMM)), with the GEMM times those of the ops' own costs. With
        // the backward's only (Megatron's async all-reduce) the forward part stays whole.
        StepSettings off;
        off.microbatches = 2;
        off.overlap = false;
        StepSettings on = off;
        on.tpOverlap = TpOverlap(mode);
        const Setup a("gpt3-1.3b", {"layers=2"}, 1, "data=1,model=8", "megatron-sp", off);
        const Setup b("gpt3-1.3b", {"layers=2"}, 1, "data=1,model=8", "megatron-sp", on);
        int overlapped = 0;
        for (const Edge& e : b.model->edges()) {
            const OpStrategy& sf = b.plan.ops[e.from.index()].strategy;
            const OpStrategy& st = b.plan.ops[e.to.index()].strategy;
            const auto pe = a.model->producerEnd(e, sf);
            const auto ce = a.model->consumerEnd(e, st);
            const double tensorBytes = a.graph.tensor(e.tensor).bytes();
            const ReshardTime f = a.model->reshardTime(pe.value, ce.value, tensorBytes);
            const double grad =
                a.model->needsGradient(e.tensor) ? a.model->reshardTime(ce.gradient, pe.gradient, tensorBytes).seconds : 0;
            auto gemm = [&](OpId o) { return b.model->hidesTensorParallelComm(o) ? b.model->opCost(o, b.plan.ops[o.index()].strategy) : OpCost{}; };
            const OpCost producer = gemm(e.from), consumer = gemm(e.to);
            const bool weightInput = b.graph.tensor(e.tensor).role == TensorRole::Parameter;
            const double fw = full ? producer.forward / 2 + (weightInput ? 0 : consumer.forward / 2) : 0;
            const double bw = weightInput ? 0 : consumer.backward / 2 + (full ? producer.backward / 2 : 0);
            // A GEMM beside a collective runs 1 + slowdown times slower: a window of w seconds of
            // GEMM holds w (1 + slowdown) of communication, and what it hides, h, costs
            // h slowdown / (1 + slowdown) of extra compute.
            const double slow = a.cluster.device.overlapSlowdown;
            auto behind = [slow](double comm, double window) {
                const double h = std::min(comm, window * (1 + slow));
                return comm - h + h * slow / (1 + slow);
            };
            // A consumer keeping the producer's sharding runs the forward's gathers g again in the
            // backward: g in the forward beside the forward GEMMs (what the rest leaves of them), the
            // re-gather with the gradient beside the backward GEMM.
            double expected = behind(f.seconds, 2 * fw) + behind(grad, 2 * bw);
            if (a.model->keepsProducerSharding(e)) {
                const double rest = f.seconds - f.gathers;
                expected = behind(rest, 2 * fw) +
                           behind(f.gathers, std::max(0.0, 2 * fw * (1 + slow) - rest) / (1 + slow)) +
                           behind(grad + f.gathers, 2 * bw);
            }
            const EdgeCost c = b.model->edgeCost(e, sf, st);
            QVERIFY(std::abs(c.time() - expected) <= 1e-12 + 1e-9 * expected);
            QVERIFY(c.time() <= a.model->edgeCost(e, sf, st).time() * (1 + 1e-12));
            overlapped += c.time() < a.model->edgeCost(e, sf, st).time() * (1 - 1e-9) ? 1 : 0;
        }
        // QKV, output projection, MLP in and out in both blocks; the backward's only: into QKV and MLP in.
        QVERIFY(overlapped >= (full ? 8 : 4));
        QVERIFY(b.eval->stepTime < a.eval->stepTime);
        QVERIFY(b.eval->stepTime >= b.eval->computeTime);
        QCOMPARE(b.eval->commTime, a.eval->commTime);
    }
    void gradientSyncHidesBehindItsOpsBackward() {
        // Data parallel over two nodes with 4 micro-batches: each weight's all-reduce (once per step)
        // runs behind one micro-batch's backward of its op, which runs 1 + slowdown times slower
        // meanwhile: hidden h = min(t_sync, backward / 4 x (1 + slowdown)), exposed t_sync - h, and the
        // backward takes h slowdown / (1 + slowdown) longer.
        StepSettings off;
        off.microbatches = 4;
        off.overlap = false;
        StepSettings on = off;
        on.overlap = true;
        const Setup a("gpt3-1.3b", {"layers=2"}, 2, "data=16", "dp", off);
        const Setup b("gpt3-1.3b", {"layers=2"}, 2, "data=16", "dp", on);
        int weights = 0, hiddenFully = 0;
        for (std::size_t o = 0; o < a.eval->perOp.size(); ++o) {
            const OpReport& ra = a.eval->perOp[o];
            const OpReport& rb = b.eval->perOp[o];
            QCOMPARE(rb.forwardTime + rb.backwardTime + rb.recomputeTime, ra.computeTime);
            QCOMPARE(rb.commTime, ra.commTime);
            QCOMPARE(ra.exposedCommTime, ra.commTime);
            const OpCost c = b.model->opCost(OpId(o), b.plan.ops[o].strategy);
            double sync = 0;
            for (const CollectiveCost& cc : c.collectives)
                if (cc.purpose == CommPurpose::GradientSync) {
                    QCOMPARE(cc.count, 1);
                    sync += cc.time;
                }
            const double slow = b.cluster.device.overlapSlowdown;
            const double hidden = std::min(sync, c.backward / 4 * (1 + slow));
            QVERIFY(std::abs(rb.exposedCommTime - (ra.commTime - hidden)) <= 1e-12 + 1e-9 * ra.commTime);
            QVERIFY(std::abs(rb.backwardSlowdown - hidden * slow / (1 + slow)) <= 1e-15 + 1e-9 * hidden);
            weights += sync > 0 ? 1 : 0;
            hiddenFully += sync > 0 && sync <= c.backward / 4 ? 1 : 0;
        }
        QVERIFY(weights >= 8);
        QVERIFY(hiddenFully > 0);
        QVERIFY(b.eval->stepTime < a.eval->stepTime);
    }
    void edgeTimeIsTheEdgeCostsTime() {
        // The search's allocation-free edge time must equal the broken-down edge cost.
        Setup s("moe", {"layers=1"}, 1, "data=4,model=2", "megatron-sp");
        for (const Edge& e : s.model->edges()) {
            const auto& from = s.plan.ops[e.from.index()].strategy;
            const auto& to = s.plan.ops[e.to.index()].strategy;
            QCOMPARE(s.model->edgeTime(e, s.model->producerEnd(e, from), s.model->consumerEnd(e, to)),
                     s.model->edgeCost(e, from, to).time());
        }
    }
    void attentionWithDropoutRunsAtItsOwnEfficiency() {
        // gpt preset on 8 H100s, b 1, s 1024, h 1024: QK^T is 2 s^2 h = 2.15 GFLOP, half of it under the
        // causal mask, so the fused kernel's forward takes 2 s^2 h / (989 TFLOP/s x e x 2). With
        // dropout in the core (dropout=true) e is the device's attention_dropout_efficiency, without
        // it attention_efficiency; the hidden dropouts outside the core do not change it. Heads of 64
        // run at (64 / 128)^0.71 of the rate of heads of 128 either way.
        const Cluster h100 = clusterPreset("dgx-h100", 1);
        const PrecisionSetup plain(h100, Precision::BF16), dropout(h100, Precision::BF16, "dp", 8, {"dropout=true"});
        const double flops = 2.0 * 1024 * 1024 * 1024, head64 = std::pow(0.5, 0.71);
        QCOMPARE(plain.cost("layers.0.attn.scores").forward, flops / (989e12 * h100.device.attentionEfficiency * head64 * 2));
        QCOMPARE(dropout.cost("layers.0.attn.scores").forward,
                 flops / (989e12 * h100.device.attentionDropoutEfficiency * head64 * 2));
        QCOMPARE(dropout.cost("layers.0.attn.context").backward / plain.cost("layers.0.attn.context").backward,
                 h100.device.attentionEfficiency / h100.device.attentionDropoutEfficiency);
        QVERIFY(h100.device.attentionDropoutEfficiency < h100.device.attentionEfficiency);
    }
    void slidingWindowAttentionComputesOnlyItsBand() {
        // gpt preset on 8 H100s, s 1024, with a 128-key window on every layer but each second one.
        // Query i of layer 0 sees min(i + 1, 128) keys: 128 x 1024 - (1 + ... + 127) = 122,944 of the
        // 1024^2 products, so the fused kernel takes that share of QK^T's 2 s^2 h FLOPs; layer 1
        // attends fully and computes half (causal). The softmax shrinks with the band too.
        const Cluster h100 = clusterPreset("dgx-h100", 1);
        const PrecisionSetup windowed(h100, Precision::BF16, "dp", 8, {"sliding_window=128", "full_every=2"});
        const double flops = 2.0 * 1024 * 1024 * 1024, rate = 989e12 * h100.device.attentionEfficiency * std::pow(0.5, 0.71);
        const double band = (128.0 * 1024 - 127.0 * 128 / 2) / (1024.0 * 1024);
        QCOMPARE(band, 122944.0 / 1048576.0);
        QCOMPARE(windowed.cost("layers.0.attn.scores").forward, flops * band / rate);
        QCOMPARE(windowed.cost("layers.1.attn.scores").forward, flops * 0.5 / rate);
        QCOMPARE(windowed.cost("layers.0.attn.softmax").forward / windowed.cost("layers.1.attn.softmax").forward, band);
        // A window no shorter than the sequence is full attention: nothing marks the ops.
        const PrecisionSetup wide(h100, Precision::BF16, "dp", 8, {"sliding_window=1024"});
        QCOMPARE(wide.graph.op(wide.id("layers.0.attn.scores")).window, std::int64_t(0));
    }
    void smallHeadsRunTheKernelSlower() {
        // FlashAttention-3's Figure 5 (H100, BF16 forward, 4k and 8k tokens): cuDNN at heads of 64 runs at
        // 363 / 609 = 0.596 and 379 / 600 = 0.632 of heads of 128; the model's (64 / 128)^0.71 = 0.611
        // lies between. Heads of 128 and wider run at the fitted efficiency itself.
        QVERIFY(attentionHeadDimRate(64) > 363.0 / 609 && attentionHeadDimRate(64) < 379.0 / 600);
        QCOMPARE(attentionHeadDimRate(128), 1.0);
        QCOMPARE(attentionHeadDimRate(256), 1.0);
        QCOMPARE(attentionHeadDimRate(0), 1.0);
        // The same gpt layer with heads of 128 (8 of them over hidden 1024): the same QK^T FLOPs, run
        // 1 / 0.611 faster than with 16 heads of 64.
        const Cluster h100 = clusterPreset("dgx-h100", 1);
        const PrecisionSetup narrow(h100, Precision::BF16), wide(h100, Precision::BF16, "dp", 8, {"heads=8"});
        QCOMPARE(wide.graph.op(wide.id("layers.0.attn.scores")).rule.iterationSpace(),
                 narrow.graph.op(narrow.id("layers.0.attn.scores")).rule.iterationSpace());
        QCOMPARE(narrow.cost("layers.0.attn.scores").forward / wide.cost("layers.0.attn.scores").forward,
                 1 / std::pow(0.5, 0.71));
    }
    void crossEntropyMovesItsPassesOverTheLogits() {
        // gpt preset, dp over 8 A100s: the loss reads logits of b 1 x s 1024 x V per GPU. Unfused, as
        // Megatron-Core's vocab-parallel loss runs it in FP32, the forward moves per logit: the cast
        // (read 2, write 4), the row maximum (read 4), the shift, the exponential and the division in
        // place (8 each) and the sum (read 4) = 38 bytes; the backward scales the softmax in place (8)
        // and casts the gradient back (read 4, write 2) = 14; the FP32 copy (4 bytes a logit) is a
        // buffer while it runs. Fused (Transformer Engine's kernel): the forward reads the logits twice
        // and writes the gradient over them (6 bytes), the backward scales it in place (4), no copy.
        // All memory-bound at 2.0 TB/s: 5 FLOPs a logit at 312 TFLOP/s is 150x less.
        StepSettings fused;
        fused.loss = LossKernel::Fused;
        const Setup unfused("gpt", {}, 1, "data=8", "dp"), te("gpt", {}, 1, "data=8", "dp", fused);
        const OpId loss = *unfused.graph.findOp("loss");
        const double logits = unfused.graph.tensor(unfused.graph.op(loss).inputs.front()).elements() / 8.0;
        QCOMPARE(logits, 1024.0 * unfused.graph.tensor(unfused.graph.op(loss).inputs.front()).shape.back());
        const double bw = 2.0e12;
        const OpCost u = unfused.model->opCost(loss, unfused.plan.ops[loss.index()].strategy);
        const OpCost f = te.model->opCost(loss, te.plan.ops[loss.index()].strategy);
        QCOMPARE(u.forward, logits * (2 + 4 + 4 + 8 + 8 + 4 + 8) / bw);
        QCOMPARE(u.backward, logits * (8 + 4 + 2) / bw);
        QCOMPARE(f.forward, logits * (2 + 2 + 2) / bw);
        QCOMPARE(f.backward, logits * (2 + 2) / bw);
        QCOMPARE(u.transient - f.transient, logits * 4);
    }
    void fp8GemmRunsAtTheFp8PeakWithItsCasts() {
        // fc1 of layer 0 on one H100 of 8 (b 1, s 1024, h 1024, f 4096), FP8 GEMMs at a made-up 0.5 of
        // the 1979 TFLOP/s FP8 peak against BF16 at the preset's 0.7162 of 989. The GEMM's time scales
        // by the peak ratio and the efficiencies; beside it the casts move 4 bytes per element (read 2,
        // write the FP8 copy and its transpose) at 3.35 TB/s: the input activation (s h) and the weight
        // (h f, once per step) in the forward, the output gradient (s f) in the backward.
        Cluster h100 = clusterPreset("dgx-h100", 1);
        h100.device.fp8Efficiency = 0.5;
        const PrecisionSetup bf16(h100, Precision::BF16), fp8(h100, Precision::FP8);
        const double flops = 2.0 * 1024 * 1024 * 4096, bw = 3.35e12;
        const OpCost b = bf16.cost("layers.0.mlp.fc1"), f = fp8.cost("layers.0.mlp.fc1");
        QCOMPARE(b.forward, flops / (989e12 * 0.7162));
        const double forwardCast = (1024.0 * 1024 + 1024.0 * 4096) * 4 / bw, backwardCast = 1024.0 * 4096 * 4 / bw;
        QCOMPARE(f.forward - forwardCast, b.forward * (989e12 / 1979e12) * (0.7162 / 0.5));
        QCOMPARE(f.backward - backwardCast, b.backward * (989e12 / 1979e12) * (0.7162 / 0.5));
        // Attention, the LM head and the element-wise ops stay in BF16.
        for (const char* name : {"layers.0.attn.scores", "lm_head", "layers.0.mlp.gelu", "layers.0.norm1"}) {
            QCOMPARE(fp8.cost(name).forward, bf16.cost(name).forward);
            QCOMPARE(fp8.cost(name).backward, bf16.cost(name).backward);
        }
        // MXFP8 casts write the scales too, one byte per 32 elements per copy: 2 + 2 (1 + 1/32) bytes. On a
        // B200 (batch 64, b 8, so that the FP8 GEMM stays above the 4 us launch floor), 8 TB/s.
        Cluster b200 = clusterPreset("dgx-b200", 1);
        const PrecisionSetup bb(b200, Precision::BF16, "dp", 64), mx(b200, Precision::MXFP8, "dp", 64);
        const double mxCast = (8 * 1024.0 * 1024 + 1024.0 * 4096) * (2 + 2 * (1 + 1.0 / 32)) / 8e12;
        QCOMPARE(mx.cost("layers.0.mlp.fc1").forward - mxCast,
                 bb.cost("layers.0.mlp.fc1").forward * (2250e12 / 4500e12) * (0.6517 / b200.device.fp8Efficiency));
    }
    void fp8MemoryOfOneLayerByHand() {
        // One layer's terms per device (b 1, s 1024, h 1024, f 4096; bf16 2 bytes, FP8 1, MXFP8 1 + 1/32):
        //  - fc1's weight (h f) keeps its FP8 copy and transpose beside the BF16 weight on an H100: + 2 h f
        //    bytes (MXFP8: its row- and column-wise copies with their scales);
        //  - norm2's output is kept only for fc1's weight gradient: s h x 2 in BF16, x 1 as FP8;
        //  - GeLU's output is kept only for fc2's: s f x 2, x 1;
        //  - the fused attention's output is kept for its own backward (BF16) and as proj's FP8 input:
        //    s h x 2, then x (2 + 1).
        const double s = 1024, h = 1024, f = 4096;
        const Cluster h100 = clusterPreset("dgx-h100", 1), b200 = clusterPreset("dgx-b200", 1);
        const PrecisionSetup bf16(h100, Precision::BF16), fp8(h100, Precision::FP8), mx(b200, Precision::MXFP8);
        const double mxByte = 1 + 1.0 / 32;
        QCOMPARE(fp8.op("layers.0.mlp.fc1").memory.parameters - bf16.op("layers.0.mlp.fc1").memory.parameters, 2 * h * f);
        QCOMPARE(mx.op("layers.0.mlp.fc1").memory.parameters - bf16.op("layers.0.mlp.fc1").memory.parameters,
                 2 * mxByte * h * f);
        // Blackwell's tensor cores read FP8 in any layout: FP8 with one scale per tensor keeps one copy.
        const PrecisionSetup b200bf16(b200, Precision::BF16), b200fp8(b200, Precision::FP8);
        QCOMPARE(b200fp8.op("layers.0.mlp.fc1").memory.parameters - b200bf16.op("layers.0.mlp.fc1").memory.parameters,
                 1 * h * f);
        QCOMPARE(bf16.op("layers.0.norm2").memory.activations, 2 * s * h);
        QCOMPARE(fp8.op("layers.0.norm2").memory.activations, 1 * s * h);
        QCOMPARE(mx.op("layers.0.norm2").memory.activations, mxByte * s * h);
        QCOMPARE(bf16.op("layers.0.mlp.gelu").memory.activations, 2 * s * f);
        QCOMPARE(fp8.op("layers.0.mlp.gelu").memory.activations, 1 * s * f);
        QCOMPARE(bf16.op("layers.0.attn.context").memory.activations, 2 * s * h);
        QCOMPARE(fp8.op("layers.0.attn.context").memory.activations, 3 * s * h);
        // The LM head's weight and its input stay BF16: no copies, the final norm's output kept at 2 bytes.
        QCOMPARE(fp8.op("lm_head").memory.parameters, bf16.op("lm_head").memory.parameters);
        QCOMPARE(fp8.op("final_norm").memory.activations, bf16.op("final_norm").memory.activations);
        // Optimizer state and gradients are the same: FP32 master, m, v and BF16 gradients.
        QCOMPARE(fp8.eval->memory.optimizer, bf16.eval->memory.optimizer);
        QCOMPARE(fp8.eval->memory.gradients, bf16.eval->memory.gradients);
    }
    void fp8Zero3GathersOneFp8Copy() {
        // ZeRO-3 gathers fc1's weight in FP8 (FSDP2's float8 all-gather): h f bytes, not 2 h f; the
        // gathered copies (value and transpose, 2 h f) take the room the BF16 weight took.
        const double h = 1024, f = 4096;
        const Cluster h100 = clusterPreset("dgx-h100", 1);
        const PrecisionSetup bf16(h100, Precision::BF16, "zero3"), fp8(h100, Precision::FP8, "zero3");
        auto gathered = [](const OpCost& c) {
            std::vector<double> bytes;
            for (const CollectiveCost& g : c.collectives)
                if (g.purpose == CommPurpose::ParameterGather)
                    bytes.push_back(g.bytes);
            return bytes;
        };
        QCOMPARE(gathered(bf16.cost("layers.0.mlp.fc1")), (std::vector<double>{2 * h * f, 2 * h * f}));
        QCOMPARE(gathered(fp8.cost("layers.0.mlp.fc1")), (std::vector<double>{h * f, h * f}));
        QCOMPARE(fp8.cost("layers.0.mlp.fc1").transient, bf16.cost("layers.0.mlp.fc1").transient);
        QCOMPARE(fp8.op("layers.0.mlp.fc1").memory.parameters, bf16.op("layers.0.mlp.fc1").memory.parameters);
    }
    void expertAxisMakesAllToAllsInsideDataParallelism() {
        // The moe preset (8 experts, top-2) on data=2,expert=4 with the distributed optimizer: the expert
        // computations split their experts over `expert` (2 of 8 per rank) and their slots over `data`;
        // every other op splits its batch over both, so dispatch and combine reshard the slots into
        // the experts by all-to-alls over `expert` alone. An expert weight's gradient is partial over
        // `data` only (reduce-scattered over the 2 ranks holding the same experts); a dense weight's over
        // `data` and `expert` (all 8), and ZeRO shards over both.
        Setup s("moe", {}, 1, "data=2,expert=4", "zero1");
        const AxisSet data = axisBit(AxisId(0)), expert = axisBit(AxisId(1));
        QCOMPARE(s.plan.settings.zeroAxes, data | expert);
        const auto& gateUp = s.graph.op(*s.graph.findOp("layers.0.moe.experts.gate_up"));
        QCOMPARE(s.op("layers.0.moe.experts.gate_up").strategy, std::string("data:c expert:e"));
        QCOMPARE(s.op("layers.0.attn.qkv").strategy, std::string("data:b expert:b"));
        const auto counts = reshardCounts(s, "layers.0", expert);
        QCOMPARE(counts.at({CollectiveKind::AllToAll, Phase::Forward}), 2);  // dispatch -> experts, experts -> combine
        QCOMPARE(counts.at({CollectiveKind::AllToAll, Phase::Backward}), 2);
        QCOMPARE(reshardCounts(s, "layers.0", data).size(), std::size_t(0));
        auto syncAxes = [&](const std::string& name) {
            std::vector<AxisSet> axes;
            for (const CollectiveCost& c : s.op(name).collectives)
                if (c.purpose == CommPurpose::GradientSync)
                    axes.push_back(c.axes);
            return axes;
        };
        QCOMPARE(syncAxes("layers.0.moe.experts.gate_up"), std::vector<AxisSet>{data});
        QCOMPARE(syncAxes("layers.0.attn.qkv"), std::vector<AxisSet>{data | expert});
        // Each rank keeps 2 of the 8 experts' weights, in bf16.
        double expertWeights = 0;
        for (TensorId t : gateUp.inputs)
            if (s.graph.tensor(t).role == TensorRole::Parameter)
                expertWeights += s.graph.tensor(t).bytes();
        QCOMPARE(s.op("layers.0.moe.experts.gate_up").memory.parameters, expertWeights / 4);
    }
    void memoryOfDataParallelByHand() {
        // Replicated: bf16 parameters and gradients (2 + 2 bytes) and Adam's fp32 master, m, v (12 bytes).
        Setup s("gpt", {}, 1, "data=8", "dp");
        const double n = s.graph.parameterCount();
        QCOMPARE(s.eval->memory.parameters, 2 * n);
        QCOMPARE(s.eval->memory.gradients, 2 * n);
        QCOMPARE(s.eval->memory.optimizer, 12 * n);
    }
    void zeroStagesShardTheirShare_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<double>("params");
        QTest::addColumn<double>("grads");
        QTest::addColumn<double>("optimizer");
        // Divisors of the replicated figures over a data axis of 8.
        QTest::newRow("zero1") << QStringLiteral("zero1") << 1.0 << 1.0 << 8.0;
        QTest::newRow("zero2") << QStringLiteral("zero2") << 1.0 << 8.0 << 8.0;
        QTest::newRow("zero3") << QStringLiteral("zero3") << 8.0 << 8.0 << 8.0;
        QTest::newRow("fsdp") << QStringLiteral("fsdp") << 8.0 << 8.0 << 8.0;
    }
    void zeroStagesShardTheirShare() {
        QFETCH(QString, strategy);
        QFETCH(double, params);
        QFETCH(double, grads);
        QFETCH(double, optimizer);
        Setup dp("gpt", {}, 1, "data=8", "dp");
        Setup z("gpt", {}, 1, "data=8", strategy.toStdString());
        QCOMPARE(z.eval->memory.parameters, dp.eval->memory.parameters / params);
        QCOMPARE(z.eval->memory.gradients, dp.eval->memory.gradients / grads);
        QCOMPARE(z.eval->memory.optimizer, dp.eval->memory.optimizer / optimizer);
        QCOMPARE(z.eval->memory.activations, dp.eval->memory.activations);
    }
    void gpt3DataParallelDoesNotFit() {
        Setup s("gpt3-175b", {"batch=16"}, 1, "data=8", "dp"); // one micro-batch of 16: memory, not speed
        QVERIFY(!s.eval->feasible);
        const QString why = QString::fromStdString(s.eval->overflow);
        QVERIFY2(why.contains(QStringLiteral("exceeds")) && why.contains(QStringLiteral("optimizer state")) &&
                     why.contains(QStringLiteral(".weight")),
                 qPrintable(why));
    }
    void gpt3MegatronWithZero3Fits() {
        // Megatron over the 8 GPUs of a node, ZeRO-3 over the 16 nodes; one sequence per data rank.
        Setup s("gpt3-175b", {"batch=16"}, 16, "data=16,model=8", "megatron+zero3"); // one sequence per replica
        QVERIFY2(s.eval->feasible, s.eval->overflow.c_str());
        QVERIFY(s.eval->peakMemory < s.cluster.device.memoryBytes);
    }
    void recomputationTradesComputeForMemory() {
        // Unfused attention, whose s x s tensors selective recomputation drops.
        StepSettings unfused;
        unfused.attention = AttentionKernel::Unfused;
        Setup none("gpt", {"layers=8"}, 1, "data=8", "dp", unfused);
        StepSettings full = unfused;
        full.recompute = Recompute::Full;
        Setup rec("gpt", {"layers=8"}, 1, "data=8", "dp", full);
        // Per layer none keeps ~34sbh + 5as^2b, full one 2sbh checkpoint, plus the working set of one
        // recomputed layer; the embedding and head keep theirs under both.
        QVERIFY(rec.eval->memory.activations < none.eval->memory.activations / 3);
        QVERIFY(rec.eval->computeTime > none.eval->computeTime);
        StepSettings selective = unfused;
        selective.recompute = Recompute::Selective;
        Setup sel("gpt", {"layers=8"}, 1, "data=8", "dp", selective);
        QVERIFY(sel.eval->memory.activations < none.eval->memory.activations);
        QVERIFY(sel.eval->memory.activations > rec.eval->memory.activations);
    }
    void fusedAttentionRunsAtItsEfficiencyAndRecomputesTheScores() {
        // FlashAttention-2 (Dao 2023): the core's two contractions, QK^T and PV of 2 b s^2 h FLOPs each,
        // run at the attention efficiency with no HBM traffic; the backward is 2.5x the forward: dX
        // and dW of both (4x one) plus the scores' recomputation (1x one). gpt: b 1 per device, s 1024,
        // h 1024; a decoder, so the causal kernel computes only the lower half of the s x s blocks. Its
        // 16 heads are 64 wide: the kernel runs at (64 / 128)^0.71 of its rate at heads of 128.
        Setup s("gpt", {}, 1, "data=8", "dp");
        const DeviceSpec& d = s.cluster.device;
        const double one = 0.5 * 2.0 * 1 * 1024 * 1024 * 1024 /
                           (d.peakFor(DType::BF16) * d.attentionEfficiency * std::pow(0.5, 0.71));
        double forward = 0, again = 0;
        int contractions = 0;
        for (const Op& op : s.graph.ops()) {
            const OpId id = *s.graph.findOp(op.name);
            if (!op.attentionCore || op.block.rfind("layers.0", 0) != 0 ||
                opKindTraits(op.kind).category != OpCategory::Contraction)
                continue;
            const OpCost c = s.model->opCost(id, s.plan.ops[id.index()].strategy);
            QCOMPARE(c.forward, one);
            forward += c.forward;
            again += c.backward + c.recompute;
            ++contractions;
        }
        QCOMPARE(contractions, 2);
        QCOMPARE(again, 2.5 * forward);
    }
    void microbatchesRepeatForwardAndBackwardOnly() {
        // Twice the micro-batches of half the size: same gradient-sync time, same FLOPs per step.
        StepSettings two;
        two.microbatches = 2;
        Setup one("gpt", {}, 1, "data=8", "dp");
        Setup acc("gpt", {"batch=16"}, 1, "data=8", "dp", two);
        double syncOne = 0, syncAcc = 0;
        for (const OpReport& r : one.eval->perOp)
            for (const CollectiveCost& c : r.collectives)
                syncOne += c.totalTime();
        for (const OpReport& r : acc.eval->perOp)
            for (const CollectiveCost& c : r.collectives)
                syncAcc += c.totalTime();
        QCOMPARE(syncAcc, syncOne);
        QCOMPARE(acc.eval->flopsPerStep, 2 * one.eval->flopsPerStep);
    }
    void costsOpAsHoldsExactlyWhereEveryStrategyCostsTheSame() {
        // Every pair of ZeRO stage x recomputation x attention kernel settings on one mesh, every op, every valid
        // strategy: where costsOpAs() says the op costs the same, opCost agrees field by field; where
        // it says not, some strategy's cost differs (so the search shares all it can).
        // One graph and cluster shared by every model: costsOpAs() holds only within one problem.
        const auto graphShared = std::make_shared<const Graph>(loadModel(ModelRequest{"gpt", {"layers=2"}, std::nullopt}, 2));
        const auto clusterShared = std::make_shared<const Cluster>(clusterPreset("dgx-a100", 1));
        const Graph& g = *graphShared;
        const Cluster& c = *clusterShared;
        const Mesh mesh = Mesh::parse("data=4,model=2");
        std::vector<std::unique_ptr<CostModel>> models;
        for (int z : {0, 1, 3})
            for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
                for (AttentionKernel a : {AttentionKernel::Fused, AttentionKernel::Unfused}) {
                    StepSettings s;
                    s.microbatches = 2;
                    s.zeroStage = z;
                    s.zeroAxes = z > 0 ? axisBit(AxisId(0)) : 0;
                    s.recompute = r;
                    s.attention = a;
                    models.push_back(std::make_unique<CostModel>(graphShared, clusterShared, mesh, s));
                }
        auto same = [](const OpCost& x, const OpCost& y) {
            return x.forward == y.forward && x.backward == y.backward && x.recompute == y.recompute &&
                   x.optimizer == y.optimizer && x.commTime() == y.commTime() && x.memory.sum() == y.memory.sum() &&
                   x.transient == y.transient;
        };
        int shared = 0, apart = 0;
        for (std::size_t v = 0; v < g.ops().size(); ++v) {
            const Op& op = g.ops()[v];
            const OpId id(v);
            const std::vector<OpStrategy> strategies = enumerateStrategies(op, mesh);
            for (const auto& a : models)
                for (const auto& b : models) {
                    if (a == b)
                        continue;
                    bool allSame = true;
                    for (const OpStrategy& st : strategies)
                        allSame = allSame && same(a->opCost(id, st), b->opCost(id, st));
                    const bool claimed = a->costsOpAs(id, *b);
                    QVERIFY2(!claimed || allSame, op.name.c_str());
                    QVERIFY2(claimed || !allSame, (op.name + " z" + std::to_string(a->settings().zeroStage) + " r" + std::to_string(int(a->settings().recompute)) + " vs z" + std::to_string(b->settings().zeroStage) + " r" + std::to_string(int(b->settings().recompute))).c_str());
                    ++(claimed ? shared : apart);
                }
        }
        QVERIFY(shared > 0 && apart > 0);
        // Another micro-batch count is another graph: nothing is shared.
        const Graph g4 = loadModel(ModelRequest{"gpt", {"layers=2"}, std::nullopt}, 4);
        StepSettings four;
        four.microbatches = 4;
        const CostModel other(g4, c, mesh, four);
        QVERIFY(!models.front()->costsOpAs(OpId(0), other));
    }

    void reshardMemoPricesEachReshardingOnce() {
        // Shardings that differ in one dimension's axes, in the partial axes or only in rank pack to
        // different words; seven dimensions do not pack.
        const TensorSharding a{{1, 0, 0}, 0}, b{{0, 1, 0}, 0}, c{{1, 0, 0}, 2}, d{{1, 0}, 0};
        const std::vector<TensorSharding> all{a, b, c, d};
        for (std::size_t i = 0; i < all.size(); ++i)
            for (std::size_t j = 0; j < all.size(); ++j)
                QCOMPARE(*ReshardMemo::word(all[i]) == *ReshardMemo::word(all[j]), i == j);
        QVERIFY(!ReshardMemo::word(TensorSharding{std::vector<AxisSet>(7, 0), 0}));
        // The same word gets the same number, another word another one.
        ReshardMemo memo;
        std::vector<int> ids;
        for (const TensorSharding& t : all)
            ids.push_back(memo.id(*ReshardMemo::word(t)));
        for (std::size_t i = 0; i < all.size(); ++i) {
            QCOMPARE(memo.id(*ReshardMemo::word(all[i])), ids[i]);
            for (std::size_t j = 0; j < i; ++j)
                QVERIFY(ids[i] != ids[j]);
        }
        // 3000 distinct reshardings (1000 sizes, three sources, the rows growing as they come), each
        // asked for three times and in both directions: each is priced once and answers what its
        // first pricing said; the reverse resharding is its own entry.
        int priced = 0;
        for (int round = 0; round < 3; ++round)
            for (int k = 0; k < 3000; ++k) {
                const double bytes = 1024.0 * (1 + k % 1000);
                ReshardMemo::Sized& sized = memo.sized(bytes);
                const int from = ids[std::size_t(k / 1000)], to = ids[3];
                const ReshardTime expected{bytes + 1e9 * double(k / 1000), bytes};
                const ReshardTime got = sized.time(from, to, [&] {
                    ++priced;
                    return expected;
                });
                QCOMPARE(got, expected);
                const ReshardTime back = sized.time(to, from, [&] {
                    ++priced;
                    return ReshardTime{-expected.seconds, 0};
                });
                QCOMPARE(back, (ReshardTime{-expected.seconds, 0}));
            }
        QCOMPARE(priced, 6000);
    }
};

QTEST_GUILESS_MAIN(TestCostModel)
#include "tst_cost_model.moc"
