// Choosing the stage cut (engine/search/stage_cuts.h): the programme against a brute force over
// every cut, a cut's predicted stage figures against the evaluation of that cut, the worked example,
// memory pushing blocks off the first stage, and locked ops keeping their stage.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/evaluation/evaluation.h"
#include "engine/search/stage_cuts.h"
#include "engine/plans/baselines.h"

#include <cmath>
#include <functional>
#include <random>

using namespace shardscope;

namespace {

/// The slowest stage, the most work and the highest peak of a cut.
struct Worst {
    double time = 0, work = 0, memory = 0;
};

Worst worstOf(const std::vector<CutStage>& stages) {
    Worst w;
    for (const CutStage& s : stages) {
        w.time = std::max(w.time, s.time);
        w.work = std::max(w.work, s.work);
        w.memory = std::max(w.memory, s.memory);
    }
    return w;
}

/// Every way to deal `blocks` blocks into `chunks` non-empty contiguous chunks.
void everyCut(int blocks, int chunks, std::vector<int>& prefix, const std::function<void(const std::vector<int>&)>& visit) {
    if (chunks == 1) {
        prefix.push_back(blocks);
        visit(prefix);
        prefix.pop_back();
        return;
    }
    for (int n = 1; n <= blocks - (chunks - 1); ++n) {
        prefix.push_back(n);
        everyCut(blocks - n, chunks - 1, prefix, visit);
        prefix.pop_back();
    }
}

/// True when the cut keeps every pinned block on its stage.
bool keeps(const std::vector<int>& cut, int stages, const std::vector<int>& pin) {
    int b = 0;
    for (std::size_t c = 0; c < cut.size(); ++c)
        for (int k = 0; k < cut[c]; ++k, ++b)
            if (!pin.empty() && pin[std::size_t(b)] >= 0 && pin[std::size_t(b)] != int(c) % stages)
                return false;
    return true;
}

/// A GPT of 8 layers (hidden 1024, sequence 512) with a `vocab`-word vocabulary: with GPT-2's 50,257
/// its head costs about four layers (2 V h against 24 h^2 per token), so the last stage of a balanced
/// cut is the slowest.
Graph headHeavyGpt(int m, int vocab = 50257) {
    ModelParams p;
    p.layers = 8;
    p.batch = 32;
    p.seq = 512;
    p.vocab = vocab;
    return buildModel("gpt", p, m, "gpt");
}

void near(double actual, double expected, const char* what) {
    QVERIFY2(std::abs(actual - expected) <= 1e-9 * std::abs(expected) + 1e-15,
             qPrintable(QStringLiteral("%1: %2, expected %3").arg(QLatin1String(what)).arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12)));
}

/// The plan `spec` on `mesh` with the cut `chunkBlocks` (empty: balanced) and its evaluation as the
/// search's objective (cut profiles sum per-op figures, as the objective does).
std::pair<Plan, std::shared_ptr<const Evaluation>> evaluated(const Graph& g, const Cluster& cluster, const Mesh& mesh,
                                                             StepSettings settings, const std::vector<int>& chunkBlocks) {
    const PipelineLayout layout = makePipelineLayout(g, mesh.pipelineStages(), settings.virtualStages, chunkBlocks);
    Plan plan = baselinePlan(g, mesh, "megatron-sp", settings, nullptr, &layout);
    auto e = evaluate(CostModel(g, cluster, mesh, plan.settings), plan, nullptr, EvaluationDetail::Full,
                      Composition::Objective);
    return {std::move(plan), std::move(e)};
}

/// The balanced megatron-sp plan of an 8-layer GPT of `vocab` words on pipe=4,data=1,model=2 (one
/// node), 1F1B over 8 micro-batches, with its evaluation and blocks.
struct Balanced {
    static constexpr int m = 8;
    Graph g;
    Cluster cluster = clusterPreset("dgx-a100", 1);
    Mesh mesh = Mesh::parse("pipe=4,data=1,model=2");
    std::optional<RepeatedBlocks> blocks;
    StepSettings s;
    Plan plan;
    std::shared_ptr<const Evaluation> e;

    explicit Balanced(int vocab = 50257) : g(headHeavyGpt(m, vocab)), blocks(findRepeatedBlocks(g)) {
        s.microbatches = m;
        std::tie(plan, e) = evaluated(g, cluster, mesh, s, {});
    }
    /// Its cut profile.
    CutProfile profile() const { return cutProfile(*e, plan, *blocks, m); }
};

} // namespace

class TestStageCuts : public QObject {
    Q_OBJECT
private slots:
    void theWorkedExample() {
        // The header's: 8 blocks of 1 s, embedding 0.5 s, head 3 s, P 3, no sends.
        CutProfile p = uniformProfile(8);
        p.before.time = 0.5;
        p.after.time = 3;
        StepSettings s;
        s.microbatches = 8;
        const auto cut = chooseStageCut(p, 3, s, 1e30);
        QVERIFY(cut);
        QCOMPARE(*cut, (std::vector<int>{3, 4, 1}));
        QCOMPARE(worstOf(cutStages(p, {3, 3, 2}, 3, s)).time, 5.0);
        QCOMPARE(worstOf(cutStages(p, *cut, 3, s)).time, 4.0);
    }

    void theProgrammeFindsWhatEveryCutTriedFinds() {
        // Random profiles, capacities and pins; the brute force tries every cut and keeps the one that
        // fits with the least slowest stage, then the least work (when none fits, the least peak).
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int compared = 0, fitting = 0, pinned = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const int L = 3 + int(rng() % 7);
            const int P = 2 + int(rng() % std::min(3, L - 1));
            CutProfile p;
            for (int b = 0; b < L; ++b)
                p.blocks.push_back(CutSegment{0.5 + u(rng), u(rng), 1 + u(rng), 1 + u(rng), 0.1 * u(rng), u(rng)});
            p.before = CutSegment{2 * u(rng), u(rng), u(rng), u(rng), 0, u(rng)};
            p.after = CutSegment{3 * u(rng), u(rng), u(rng), u(rng), 0, u(rng)};
            p.sendForward = 0.1 * u(rng);
            p.sendBackward = 0.1 * u(rng);
            StepSettings s;
            s.microbatches = 1 + int(rng() % 8);
            s.schedule = trial % 3 == 0 ? Schedule::GPipe : Schedule::OneFOneB;
            std::vector<int> pin;
            if (trial % 4 == 1) {
                // Pins that some cut keeps: those of a random cut.
                std::vector<int> any(std::size_t(P), 1);
                for (int extra = L - P; extra > 0; --extra)
                    ++any[rng() % std::size_t(P)];
                pin.assign(std::size_t(L), -1);
                for (int b = 0, c = 0, k = 0; b < L; ++b, ++k) {
                    if (k == any[std::size_t(c)]) {
                        ++c;
                        k = 0;
                    }
                    if (rng() % 3 == 0)
                        pin[std::size_t(b)] = c;
                }
                ++pinned;
            }
            // A capacity between the least and the most peak over all cuts.
            double least = 1e300, most = 0;
            std::vector<int> prefix;
            everyCut(L, P, prefix, [&](const std::vector<int>& cut) {
                const double m = worstOf(cutStages(p, cut, P, s)).memory;
                least = std::min(least, m);
                most = std::max(most, m);
            });
            const double capacity = least + (most - least) * (u(rng) * 1.2 - 0.1);
            bool anyFits = false;
            Worst best{1e300, 1e300, 1e300};
            everyCut(L, P, prefix, [&](const std::vector<int>& cut) {
                if (!keeps(cut, P, pin))
                    return;
                const Worst w = worstOf(cutStages(p, cut, P, s));
                const bool fits = w.memory <= capacity;
                if (fits && !anyFits) {
                    anyFits = true;
                    best = w;
                } else if (fits == anyFits) {
                    if (fits ? (w.time < best.time || (w.time == best.time && w.work < best.work)) : w.memory < best.memory)
                        best = w;
                }
            });
            const auto cut = chooseStageCut(p, P, s, capacity, pin);
            QVERIFY(cut);
            QVERIFY(keeps(*cut, P, pin));
            const Worst got = worstOf(cutStages(p, *cut, P, s));
            if (anyFits) {
                QVERIFY(got.memory <= capacity);
                near(got.time, best.time, "slowest stage");
                near(got.work, best.work, "work at that pace");
                ++fitting;
            } else {
                near(got.memory, best.memory, "least peak");
            }
            ++compared;
        }
        QCOMPARE(compared, 400);
        QVERIFY(fitting > 100 && fitting < 400); // both branches were exercised
        QVERIFY(pinned == 100);
    }

    void aCutsFiguresAreItsEvaluations() {
        // The profile of the balanced plan predicts every stage of other cuts as their own evaluation
        // prices them: time per micro-batch, per-step work, peak memory.
        const int m = 8;
        const Graph g = headHeavyGpt(m);
        const Cluster cluster = clusterPreset("dgx-a100", 1);
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks && blocks->count() == 8);
        // Four chunks each time: 4 stages, or 2 stages of 2 virtual stages.
        for (Schedule schedule : {Schedule::OneFOneB, Schedule::GPipe, Schedule::Interleaved}) {
            StepSettings s;
            s.microbatches = m;
            s.schedule = schedule;
            s.virtualStages = schedule == Schedule::Interleaved ? 2 : 1;
            const int P = schedule == Schedule::Interleaved ? 2 : 4;
            const Mesh mesh = Mesh::parse(P == 4 ? "pipe=4,data=1,model=2" : "pipe=2,data=2,model=2");
            const auto [plan, e] = evaluated(g, cluster, mesh, s, {});
            const CutProfile profile = cutProfile(*e, plan, *blocks, m);
            const std::vector<std::vector<int>> cuts{{2, 2, 2, 2}, {3, 3, 1, 1}, {1, 2, 2, 3}};
            for (const std::vector<int>& cut : cuts) {
                const auto [other, oe] = evaluated(g, cluster, mesh, s, cut);
                const std::vector<CutStage> predicted = cutStages(profile, cut, P, s);
                for (int st = 0; st < P; ++st) {
                    const StageReport& r = oe->pipeline.stages[std::size_t(st)];
                    near(predicted[std::size_t(st)].time, r.perMicrobatch(), "stage time");
                    near(predicted[std::size_t(st)].work, r.stepWork, "stage work");
                    near(predicted[std::size_t(st)].memory, r.peakMemory, "stage peak");
                }
            }
        }
    }

    void aHeavyHeadGetsFewerBlocksAndTheStepGetsFaster() {
        const Balanced b;
        const auto& e = b.e;
        QCOMPARE(e->pipeline.slowest, 3); // the head's stage
        const auto cut = chooseStageCut(b.profile(), 4, b.s, e->memoryCapacity);
        QVERIFY(cut);
        QVERIFY((*cut)[3] < 2);
        const auto [better, be] = evaluated(b.g, b.cluster, b.mesh, b.s, *cut);
        QVERIFY2(be->stepTime < 0.95 * e->stepTime, qPrintable(QStringLiteral("%1 vs %2").arg(be->stepTime).arg(e->stepTime)));
        QVERIFY(be->pipeline.stages[std::size_t(be->pipeline.slowest)].perMicrobatch() <
                e->pipeline.stages[3].perMicrobatch());
    }

    void memoryPushesBlocksOffTheFirstStage() {
        // 1F1B: stage 0 keeps 4 micro-batches of activations, stage 3 one. With the capacity just
        // under the balanced cut's peak, the cut that fits moves blocks to the later stages. A
        // 64-word vocabulary, so that the head's logits do not make the last stage the largest.
        const Balanced b(64);
        const auto& e = b.e;
        const StepSettings& s = b.s;
        const CutProfile profile = b.profile();
        QCOMPARE(e->peakMemory, e->pipeline.stages[0].peakMemory);
        const double capacity = 0.9 * e->peakMemory;
        const auto cut = chooseStageCut(profile, 4, s, capacity);
        QVERIFY(cut);
        QVERIFY((*cut)[0] < 2);
        QVERIFY(worstOf(cutStages(profile, *cut, 4, s)).memory <= capacity);
    }

    void lockedOpsKeepTheirStage() {
        Balanced b;
        const Graph& g = b.g;
        const auto& blocks = b.blocks;
        const StepSettings& s = b.s;
        Plan& plan = b.plan;
        // Lock an op of block 7 (stage 3 of the balanced cut) and one of block 2 (stage 1).
        plan.ops[blocks->blocks[7][1].index()].locked = true;
        plan.ops[blocks->blocks[2][0].index()].locked = true;
        const std::vector<int> pin = lockedBlockStages(plan, *blocks);
        QCOMPARE(pin, (std::vector<int>{-1, -1, 1, -1, -1, -1, -1, 3}));
        const auto cut = chooseStageCut(b.profile(), 4, s, b.e->memoryCapacity, pin);
        QVERIFY(cut);
        const PipelineLayout layout = makePipelineLayout(g, 4, 1, *cut);
        QCOMPARE(layout.stageOf(blocks->blocks[7][1]), 3);
        QCOMPARE(layout.stageOf(blocks->blocks[2][0]), 1);
        // And it is the best cut that keeps them: no cut that keeps them has a faster slowest stage.
        const CutProfile profile = b.profile();
        const double got = worstOf(cutStages(profile, *cut, 4, s)).time;
        std::vector<int> prefix;
        everyCut(8, 4, prefix, [&](const std::vector<int>& other) {
            if (keeps(other, 4, pin))
                QVERIFY(worstOf(cutStages(profile, other, 4, s)).time >= got * (1 - 1e-12));
        });
        // Pins no interleaved cut keeps (block 0 on stage 1, with V 2: chunk 0 is stage 0's): none.
        StepSettings inter = s;
        inter.schedule = Schedule::Interleaved;
        inter.virtualStages = 2;
        std::vector<int> impossible(8, -1);
        impossible[0] = 1;
        QVERIFY(!chooseStageCut(uniformProfile(8), 4, inter, 1e30, impossible));
        QVERIFY(lockedBlockStages(baselinePlan(g, Mesh::parse("data=2,model=4"), "dp", s), *blocks).empty());
    }
};

QTEST_GUILESS_MAIN(TestStageCuts)
#include "tst_stage_cuts.moc"
