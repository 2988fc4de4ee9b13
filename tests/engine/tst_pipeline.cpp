// Pipelined plans (docs/DESIGN.md, Pipelining): the stage cut, the schedule's closed forms on balanced
// stages (step, bubble, activations in flight), the sends at every cut, and the checks on meshes and
// plans. Expected figures come from an unpipelined evaluation of one stage's devices and the
// schedules' formulas written out here.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/evaluation/evaluation.h"
#include "engine/evaluation/schedule_bound.h"
#include "engine/pipeline/schedule_order.h"
#include "engine/plans/baselines.h"
#include "engine/sim/simulator.h"
#include "engine/sim/trace_export.h"
#include "engine/util/error.h"

#include <cmath>
#include <map>
#include <set>

using namespace shardscope;

namespace {

/// Model parameters of `layers` layers (hidden 1024) and global batch `batch`.
ModelParams sized(int layers, int batch) {
    ModelParams p;
    p.layers = layers;
    p.batch = batch;
    return p;
}

/// A stack of identical linear + ReLU layers (hidden = ffn = 1024), global batch `batch`, built for
/// `m` micro-batches. Every pair of layers from layer 1 on is one repeated block (layer 0 reads the
/// graph's input, the last layer feeds the loss): `layers` = 2 blocks + 2.
Graph stack(int layers, int batch, int m) {
    ModelParams p = sized(layers, batch);
    p.ffn = 1024;
    return buildModel("mlp", p, m, "stack");
}

/// A GPT of `layers` layers (hidden 1024, 16 heads, sequence 512) with a 64-word vocabulary, so its
/// embedding and head are small beside a layer; global batch `batch`, built for `m` micro-batches.
Graph transformer(int layers, int batch, int m) {
    ModelParams p = sized(layers, batch);
    p.seq = 512;
    p.vocab = 64;
    return buildModel("gpt", p, m, "gpt");
}

/// A one-node cluster of `devices` A100s.
Cluster node(int devices) {
    Cluster c = clusterPreset("dgx-a100", 1);
    c.levels.front().size = devices;
    return c;
}

void near(double actual, double expected, const char* what) {
    QVERIFY2(std::abs(actual - expected) <= 1e-9 * std::abs(expected) + 1e-15,
             qPrintable(QStringLiteral("%1: %2, expected %3").arg(QLatin1String(what)).arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12)));
}

void close(double actual, double expected, double tolerance, const char* what) {
    QVERIFY2(std::abs(actual / expected - 1) <= tolerance,
             qPrintable(QStringLiteral("%1: %2, expected %3").arg(QLatin1String(what)).arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12)));
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT
private slots:
    void layoutDealsBlocksToChunks() {
        QCOMPARE(balancedChunkBlocks(10, 4), (std::vector<int>{3, 3, 2, 2}));
        QCOMPARE(parseChunkRanges("0-2,3-7,8-9", 10), (std::vector<int>{3, 5, 2}));
        for (const char* bad : {"0-2,4-9", "1-9", "0-3,4-8", "0-x"})
            QVERIFY_THROWS_EXCEPTION(InputError, parseChunkRanges(bad, 10));
        QVERIFY_THROWS_EXCEPTION(InputError, balancedChunkBlocks(3, 4));
        // 18 layers = 8 blocks (layers 1-16) over 4 stages x 2 virtual stages: chunk c holds block c
        // (layers 2c+1 and 2c+2); layer 0 joins chunk 0, layer 17 and the loss the last; stage 1 runs
        // chunks 1 and 5.
        const Graph g = stack(18, 8, 1);
        const PipelineLayout l = makePipelineLayout(g, 4, 2);
        QCOMPARE(l.chunkBlocks, std::vector<int>(8, 1));
        QCOMPARE(l.chunkOf[g.findOp("layers.0.fc")->index()], 0);
        QCOMPARE(l.chunkOf[g.findOp("layers.11.relu")->index()], 5);
        QCOMPARE(l.stageOf(*g.findOp("layers.11.relu")), 1);
        QCOMPARE(l.chunkOf[g.findOp("layers.17.fc")->index()], 7);
        QCOMPARE(l.chunkOf[g.findOp("loss")->index()], 7);
        QCOMPARE(l.rangesText(), std::string("0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7"));
        QVERIFY_THROWS_EXCEPTION(InputError, makePipelineLayout(g, 4, 4));
    }
    void meshAndPlanChecks() {
        QVERIFY_THROWS_EXCEPTION(InputError, Mesh::parse("data=2,pipe=4"));
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        QCOMPARE(mesh.pipelineStages(), 4);
        QCOMPARE(mesh.stageAxes(), AxisSet(2));
        const Graph g = stack(10, 8, 1);
        Plan plan = baselinePlan(g, mesh, "dp", {});
        QCOMPARE(plan.verify(g), std::string());
        QCOMPARE(plan.pipeline.stages, 4);
        // No factor splits over the pipe axis.
        plan.ops[g.findOp("layers.0.fc")->index()].strategy.factorOfAxis[0] = 0;
        QVERIFY(plan.verify(g).find("pipe axis") != std::string::npos);
        // Virtual stages need the interleaved schedule.
        StepSettings s;
        s.virtualStages = 2;
        QVERIFY_THROWS_EXCEPTION(InputError, baselinePlan(g, mesh, "dp", s)); // 4 blocks, 8 chunks
        const Graph deep = stack(18, 8, 1);
        Plan interleaved = baselinePlan(deep, mesh, "dp", s);
        QVERIFY(interleaved.verify(deep).find("interleaved") != std::string::npos);
    }
    void oneFOneBOnBalancedStagesByHand() {
        // 10 layers (4 blocks) on pipe=4,data=2 in one node, 8 micro-batches of 4 rows (2 per
        // device). Each stage is one block (stage 0 also layer 0, stage 3 layer 9 and the loss) on a
        // data=2 pair: the same figures as its ops in an unpipelined plan on two GPUs.
        const int P = 4, m = 8, batch = 32;
        const Graph g = stack(10, batch, m);
        StepSettings settings;
        settings.microbatches = m;
        settings.overlap = false;
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        const Cluster cluster = node(8);
        const Plan plan = baselinePlan(g, mesh, "dp", settings);
        const auto e = evaluate(CostModel(g, cluster, mesh, plan.settings), plan);
        const Mesh pair = Mesh::parse("data=2");
        const Cluster two = node(2);
        const Plan flat = baselinePlan(g, pair, "dp", settings);
        const auto ref = evaluate(CostModel(g, two, pair, flat.settings), flat);

        // Per stage: its ops' compute and exposed communication per micro-batch from the reference,
        // plus the sends. The activation crossing a cut is [2, 1024] bf16 per device (split on the
        // data axis, so nothing to scatter): 4096 bytes at NVLink's achieved 232.5 GB/s, one step of
        // 1.75 us and the 15.26 us every collective pays, sent forward and its gradient back.
        const double bytes = 2 * 1024 * 2;
        const double send = 15.26e-6 + bytes / (300e9 * 0.775) + 1.75e-6;
        std::vector<double> t(P, 0), w(P, 0), kept(P, 0), fixed(P, 0);
        for (const OpReport& r : ref->perOp) {
            const int s = plan.pipeline.stageOf(r.op);
            double comm = 0, stepComm = 0;
            for (const CollectiveCost& c : r.collectives)
                (c.phase == Phase::Step ? stepComm : comm) += c.exposedTime();
            t[s] += (r.computeTime + comm) / m;
            w[s] += r.optimizerTime + stepComm;
            kept[s] += r.memory.activations;
            fixed[s] += r.memory.parameters + r.memory.gradients + r.memory.optimizer;
        }
        for (int s = 0; s < P; ++s)
            t[s] += send * ((s < P - 1) + (s > 0));
        // The stages are uneven (stage 0 has 3 layers, stage 3 three and the loss, the others two):
        // the slowest runs m micro-batches back to back, the others fill and drain around it once.
        const double slot = *std::max_element(t.begin(), t.end());
        double others = -slot;
        for (double ts : t)
            others += ts;
        QVERIFY(e->pipeline.active());
        QVERIFY(!e->pipeline.balanced);
        near(e->stepTime, m * slot + others + *std::max_element(w.begin(), w.end()), "step");
        near(e->pipeline.bubbleFraction, others / (m * slot + others), "bubble");
        for (int s = 0; s < P; ++s) {
            const StageReport& st = e->pipeline.stages[std::size_t(s)];
            near(st.perMicrobatch(), t[s], "stage time");
            QCOMPARE(st.inFlight, double(std::min(P - s, m)));
            near(st.memory.activations, std::min(P - s, m) * kept[s], "activations");
            near(st.memory.parameters + st.memory.gradients + st.memory.optimizer, fixed[s], "static memory");
            // Sends: forward out of every stage but the last, gradients back out of every stage but the first.
            near(st.transferBytes, bytes * ((s < P - 1) + (s > 0)), "bytes sent");
        }
        near(e->stepTime, e->computeTime + e->exposedCommTime + e->optimizerTime + e->bubbleTime, "parts");
    }
    void lowerBoundsByHand() {
        // The bound the search prunes with (schedule_bound.h) on 10 layers over pipe=4,data=2, data
        // parallel (no blocking collectives: a pass is its compute), 8 micro-batches: per stage s,
        // chunks 0..s-1's forward passes before it, its 8 micro-batches, their backward passes after
        // it; here no schedule can beat it and every schedule's composed step is at least it.
        const int P = 4, m = 8;
        const Graph g = stack(10, 32, m);
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        const Cluster cluster = node(8);
        for (Schedule sched : {Schedule::GPipe, Schedule::OneFOneB}) {
            for (bool overlap : {false, true}) {
                StepSettings settings;
                settings.microbatches = m;
                settings.schedule = sched;
                settings.overlap = overlap;
                const Plan plan = baselinePlan(g, mesh, "dp", settings);
                const CostModel model(g, cluster, mesh, plan.settings);
                const auto e = evaluate(model, plan);
                std::vector<double> f(P, 0), b(P, 0), opt(P, 0);
                for (const OpReport& r : e->perOp) {
                    const int s = plan.pipeline.stageOf(r.op);
                    f[s] += r.forwardTime / m;
                    b[s] += (r.backwardTime + r.recomputeTime) / m;
                    opt[s] += r.optimizerTime;
                }
                double bound = 0, before = 0, after = 0, all = 0;
                for (int s = 0; s < P; ++s) {
                    bound = std::max(bound, before + m * (f[s] + b[s]) + std::max(opt[s], after + opt[0]));
                    before += f[s];
                    after += b[s];
                    all += f[s] + b[s];
                }
                near(stepLowerBound(model, plan, *e), bound, "lower bound");
                near(anyCutLowerBound(model, plan, *e), m * all / P, "any cut's lower bound");
                QVERIFY(bound <= e->stepTime);
                // Cut off at the bound, the schedule is not composed and the step is the bound.
                const auto cut = evaluate(model, plan, nullptr, EvaluationDetail::Score, Composition::Streams, bound);
                QVERIFY(cut->stepIsBound);
                near(cut->stepTime, bound, "bounded step");
                const auto open = evaluate(model, plan, nullptr, EvaluationDetail::Score, Composition::Streams,
                                           e->stepTime * 1.01);
                QVERIFY(!open->stepIsBound);
                near(open->stepTime, e->stepTime, "composed step");
            }
        }
    }
    void schedulesKeepWhatTheyKeep() {
        // Near-balanced stages (a transformer whose embedding and 64-word head are a sliver of a
        // layer): GPipe takes 1F1B's time, keeps all m micro-batches per stage; interleaved with V 2
        // has the bubble (P-1)/(V m + P-1), and stage 0 keeps P micro-batches x (1 + (P-1)/(P V)).
        // Closed forms hold to the stages' imbalance, under 1%.
        const int P = 4, m = 8;
        const Graph g = transformer(8, 64, m);
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        const Cluster cluster = node(8);
        StepSettings settings;
        settings.microbatches = m;
        settings.schedule = Schedule::OneFOneB;
        const Plan oneF = baselinePlan(g, mesh, "dp", settings);
        const auto e1 = evaluate(CostModel(g, cluster, mesh, oneF.settings), oneF);
        QVERIFY(e1->pipeline.balanced);
        close(e1->pipeline.bubbleFraction, double(P - 1) / (m + P - 1), 0.01, "1f1b bubble");
        settings.schedule = Schedule::GPipe;
        const Plan gpipe = baselinePlan(g, mesh, "dp", settings);
        const auto eg = evaluate(CostModel(g, cluster, mesh, gpipe.settings), gpipe);
        close(eg->stepTime, e1->stepTime, 0.01, "gpipe time");
        for (int s = 0; s < P; ++s) {
            const double perMicrobatch = e1->pipeline.stages[std::size_t(s)].memory.activations / std::min(P - s, m);
            near(eg->pipeline.stages[std::size_t(s)].memory.activations, m * perMicrobatch, "gpipe activations");
        }
        settings.schedule = Schedule::Interleaved;
        settings.virtualStages = 2;
        const Plan inter = baselinePlan(g, mesh, "dp", settings);
        const auto ei = evaluate(CostModel(g, cluster, mesh, inter.settings), inter);
        close(ei->pipeline.bubbleFraction, double(P - 1) / (2.0 * m + P - 1), 0.01, "interleaved bubble");
        QCOMPARE(ei->pipeline.stages[0].chunks, (std::vector<int>{0, 4}));
        QCOMPARE(ei->pipeline.stages[0].inFlight, 4 * (1 + 3.0 / 8));
    }
    void schedulesIssueUnitsInMegatronsOrder() {
        // P 2, m 3, 1F1B: stage 0 warms up with one forward, stage 1 with none.
        StepSettings s;
        s.microbatches = 3;
        auto text = [](const std::vector<PipelineUnit>& units) {
            std::string t;
            for (const PipelineUnit& u : units)
                t += (t.empty() ? "" : " ") + std::string(u.forward ? "F" : "B") + std::to_string(u.chunk) +
                     ":" + std::to_string(u.microbatch);
            return t;
        };
        QCOMPARE(text(stageOrder(s, 2, 0)), std::string("F0:0 F0:1 B0:0 F0:2 B0:1 B0:2"));
        QCOMPARE(text(stageOrder(s, 2, 1)), std::string("F1:0 B1:0 F1:1 B1:1 F1:2 B1:2"));
        s.schedule = Schedule::GPipe;
        QCOMPARE(text(stageOrder(s, 2, 1)), std::string("F1:0 F1:1 F1:2 B1:0 B1:1 B1:2"));
        // Interleaved, P 2, V 2, m 4: stage 0 runs chunks 0 and 2. Forwards go in groups of P
        // micro-batches per chunk (F0:0 F0:1 F2:0 F2:1 F0:2 ...), backwards the chunks in reverse;
        // (P-s-1) 2 + (V-1) P = 4 forwards warm up.
        s.schedule = Schedule::Interleaved;
        s.virtualStages = 2;
        s.microbatches = 4;
        QCOMPARE(text(stageOrder(s, 2, 0)), std::string("F0:0 F0:1 F2:0 F2:1 F0:2 B2:0 F0:3 B2:1 F2:2 B0:0 F2:3 B0:1 "
                                                         "B2:2 B2:3 B0:2 B0:3"));
        // Every schedule runs each (chunk, micro-batch) once forward and once backward, the forward first.
        for (Schedule sched : {Schedule::GPipe, Schedule::OneFOneB, Schedule::Interleaved})
            for (int P : {2, 3, 4})
                for (int m : {P, 2 * P, 3 * P + (sched == Schedule::Interleaved ? 0 : 1)})
                    for (int stage = 0; stage < P; ++stage) {
                        s.schedule = sched;
                        s.microbatches = m;
                        s.virtualStages = sched == Schedule::Interleaved ? 3 : 1;
                        std::set<std::tuple<bool, int, int>> seen;
                        for (const PipelineUnit& u : stageOrder(s, P, stage)) {
                            QCOMPARE(u.chunk % P, stage);
                            QVERIFY(seen.insert({u.forward, u.chunk, u.microbatch}).second);
                            QVERIFY(u.forward || seen.count({true, u.chunk, u.microbatch}));
                        }
                        QCOMPARE(int(seen.size()), 2 * m * s.virtualStages);
                    }
    }
    void simulatorRunsTheScheduleAsTheClosedFormsSay() {
        // Overlap off, uneven stages (the stack above) on pipe=4,data=2, every send and receive an
        // event and each stage waiting on the others: for GPipe and 1F1B the simulated step is exactly
        // the analytic m x slowest stage + the others' fill and drain + once-per-step work (GPipe
        // per pass), and each stage's simulated peak memory its analytic peak: 1F1B stage s holds
        // min(P - s, m) micro-batches, GPipe all m. Interleaved (the near-balanced transformer, V 2):
        // the analytic form is the balanced closed form, while a backward twice the forward stalls
        // the drain a little in the simulator (3.7% here, 0.1% on gpt3-175b at m 64), and the first and
        // last chunks' extra ops (embedding, head) move the peaks by under 1%.
        const int m = 8;
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        const Cluster cluster = node(8);
        for (Schedule sched : {Schedule::OneFOneB, Schedule::GPipe, Schedule::Interleaved}) {
            const Graph g = sched == Schedule::Interleaved ? transformer(8, 64, m) : stack(10, 32, m);
            StepSettings settings;
            settings.microbatches = m;
            settings.overlap = false;
            settings.schedule = sched;
            settings.virtualStages = sched == Schedule::Interleaved ? 2 : 1;
            // Buckets of 64 KB: several per stage, synchronised after the stage's schedule (Megatron's
            // finalize_model_grads), never inside the drain.
            settings.bucketBytes = 64e3;
            const Plan plan = baselinePlan(g, mesh, "dp", settings);
            const CostModel model(g, cluster, mesh, plan.settings);
            const auto e = evaluate(model, plan);
            const auto sim = simulate(model, plan, SimOptions{false});
            QCOMPARE(int(sim->classes.size()), 4);
            close(sim->stepTime, e->stepTime, sched == Schedule::Interleaved ? 0.05 : 1e-9, "simulated step");
            for (int s = 0; s < 4; ++s) {
                double peak = 0;
                for (const MemorySample& sample : sim->classes[std::size_t(s)].memory)
                    peak = std::max(peak, sample.bytes);
                close(peak, e->pipeline.stages[std::size_t(s)].peakMemory, sched == Schedule::Interleaved ? 0.02 : 1e-9,
                      "stage peak");
            }
        }
    }
    void sendsGoToTheNeighbouringStageOnly() {
        // The stack on pipe=4,data=2 in one node of 8, 8 micro-batches: device d of stage s sends each
        // micro-batch's [2, 1024] bf16 activation (4096 bytes) to device d + 2 and its gradient back
        // from d + 2 to d: 8 x 4096 bytes per step on each such device pair, in each direction, and
        // nothing from the last stage back to the first (no ring over the pipe axis). Interleaved
        // (V 2, 8 chunks), each stage's two chunks send to the next stage's (twice the bytes), and
        // chunk 3 on the last stage sends on to chunk 4 on the first: once.
        const int m = 8;
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        for (Schedule sched : {Schedule::OneFOneB, Schedule::Interleaved}) {
            const Graph g = stack(sched == Schedule::Interleaved ? 18 : 10, 32, m);
            StepSettings settings;
            settings.microbatches = m;
            settings.schedule = sched;
            settings.virtualStages = sched == Schedule::Interleaved ? 2 : 1;
            const Plan plan = baselinePlan(g, mesh, "dp", settings);
            const auto sim = simulate(CostModel(g, node(8), mesh, plan.settings), plan, SimOptions{true});
            std::map<std::pair<int, int>, double> pairs;
            for (const PairTraffic& p : sim->traffic.front().pairs)
                pairs[{p.from, p.to}] = p.bytes;
            const double perStep = m * 2.0 * 1024 * 2;
            const int V = settings.virtualStages;
            for (int d = 0; d < 6; ++d) {
                near(pairs[{d, d + 2}], V * perStep, "activations to the next stage");
                near(pairs[{d + 2, d}], V * perStep, "gradients to the previous stage");
            }
            // The trace names each device's stage.
            const std::string trace = chromeTraceJson(*sim, node(8), mesh, {0, 7});
            QVERIFY(trace.find("\"node 0 / rank 7 / stage 3\"") != std::string::npos);
            const bool wraps = sched == Schedule::Interleaved;
            QCOMPARE(pairs.count({6, 0}) > 0, wraps);
            QCOMPARE(pairs.count({0, 6}) > 0, wraps);
            if (wraps) {
                near(pairs[{6, 0}], perStep, "the last stage's chunk on to the first stage's next");
                near(pairs[{0, 6}], perStep, "its gradient back");
            }
        }
    }
    void aStageThatOverflowsIsNamed() {
        // 2^21 rows per device per micro-batch: 4 GB per [rows, 1024] bf16 tensor, several kept per
        // layer, 4 micro-batches in flight on stage 0: the plan does not fit and the message names
        // the stage.
        const Graph g = stack(10, 1 << 25, 8);
        StepSettings settings;
        settings.microbatches = 8;
        const Mesh mesh = Mesh::parse("pipe=4,data=2");
        const Plan plan = baselinePlan(g, mesh, "dp", settings);
        const auto e = evaluate(CostModel(g, node(8), mesh, plan.settings), plan);
        QVERIFY(!e->feasible);
        QVERIFY2(e->overflow.rfind("stage 0 of 4", 0) == 0, e->overflow.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
