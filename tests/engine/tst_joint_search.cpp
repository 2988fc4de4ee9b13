// The joint search over step settings and per-op strategies against brute force: on small problems
// every mesh x every ZeRO stage, recomputation and micro-batch count x every assignment of
// strategies is enumerated, and the fastest that fits must be what the search returns. With overlap
// off: then the analytic step is the sum the search's tables hold (with overlap the streams compose
// across ops and the search ranks its candidates by that composition, docs/DESIGN.md, Overlap).

#include "shared_copy.h"
#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/cost/cost_model.h"
#include "engine/plans/baselines.h"
#include "engine/search/plan_score.h"
#include "engine/search/search.h"
#include "engine/search/search_problem.h"

#include <limits>

using namespace shardscope;

namespace {

/// A 4-device node of DGX A100 links with `memory` bytes per device.
Cluster smallCluster(double memory) {
    Cluster c = clusterPreset("dgx-a100", 1);
    c.levels.front().size = 4;
    c.device.memoryBytes = memory;
    return c;
}

struct Model {
    std::string family;
    ModelParams params;
    Graph build(int micro) const { return buildModel(family, params, micro, family); }
};

/// The settings every search and brute force here starts from: overlap off.
StepSettings base() {
    StepSettings s;
    s.overlap = false;
    return s;
}

/// The fastest step time that fits over every mesh, settings combination and assignment.
struct Oracle {
    double stepTime = std::numeric_limits<double>::infinity();
    double unconstrainedPeak = 0; ///< peak memory of the fastest plan ignoring memory
};

Oracle bruteForce(const Model& model, const Cluster& c) {
    Oracle best;
    double fastest = std::numeric_limits<double>::infinity();
    for (const Mesh& mesh : candidateMeshes(c.deviceCount(), c.devicesPerNode())) {
        const auto data = mesh.find("data");
        const SettingsSpace space = settingsSpace(base(), OpenSettings::all(), model.params.batch,
                                                  data ? mesh.size(*data) : 1);
        for (int z : space.zeroStages)
            for (Recompute r : space.recomputes)
                for (int m : space.microbatches) {
                    const StepSettings s = space.at(z, r, m, data ? axisBit(*data) : 0);
                    const Graph g = model.build(m);
                    const CostModel cm(g, c, mesh, s);
                    const SearchProblem p(sharedCopy(cm), {});
                    std::vector<int> choice(std::size_t(p.size()), 0);
                    while (true) {
                        const double t = p.stepTime(choice);
                        const double peak = p.peakMemory(choice);
                        if (peak <= c.device.memoryBytes)
                            best.stepTime = std::min(best.stepTime, t);
                        if (t < fastest) {
                            fastest = t;
                            best.unconstrainedPeak = peak;
                        }
                        int v = 0;
                        while (v < p.size() && ++choice[std::size_t(v)] == p.choices(v))
                            choice[std::size_t(v++)] = 0;
                        if (v == p.size())
                            break;
                    }
                }
    }
    return best;
}

std::shared_ptr<const SearchResult> jointSearch(const Model& model, const Graph& g, const Cluster& c) {
    SearchRequest r;
    r.graph = sharedCopy(g);
    r.cluster = sharedCopy(c);
    r.settings = base();
    r.open = OpenSettings::all();
    r.family = GraphFamily{model.params.batch, [model](int m) { return model.build(m); }};
    r.threads = 1;
    return search(r);
}

Model smallMlp();

/// The small cluster with half the memory the fastest plan of `model` needs.
Cluster halfMemoryCluster(const Model& model) {
    return smallCluster(bruteForce(model, smallCluster(1e18)).unconstrainedPeak * 0.5);
}

Model smallMlp() {
    ModelParams p;
    p.layers = 1;
    p.hidden = 256;
    p.ffn = 512;
    p.batch = 8;
    return Model{"mlp", p};
}

} // namespace

class TestJointSearch : public QObject {
    Q_OBJECT
private slots:
    void equalsBruteForceOverSettingsAndStrategies_data() {
        QTest::addColumn<double>("fraction");
        // Capacity as a fraction of the unconstrained optimum's peak: ample, then tighter, so the answer
        // moves from the fastest plan to ones that need ZeRO, recomputation or more micro-batches.
        QTest::newRow("ample") << 4.0;
        QTest::newRow("just under the fastest") << 0.9;
        QTest::newRow("half") << 0.5;
        QTest::newRow("a quarter") << 0.25;
    }
    void equalsBruteForceOverSettingsAndStrategies() {
        QFETCH(double, fraction);
        const Model model = smallMlp();
        const Graph g = model.build(1);
        const Oracle unconstrained = bruteForce(model, smallCluster(1e18));
        const Cluster c = smallCluster(unconstrained.unconstrainedPeak * fraction);
        const Oracle oracle = bruteForce(model, c);
        const auto r = jointSearch(model, g, c);
        if (oracle.stepTime == std::numeric_limits<double>::infinity()) {
            QVERIFY(!r->evaluation->feasible);
            QVERIFY(!r->report.fitAdvice.empty());
            return;
        }
        QVERIFY2(r->evaluation->feasible, r->evaluation->overflow.c_str());
        // The reported optimality gap is a true bound: the searched step time less the gap is at most
        // brute force's. With ample memory nothing is swept and the plan is proven the fastest.
        QVERIFY(r->report.optimalityGap);
        const double lower = r->evaluation->stepTime * (1 - *r->report.optimalityGap);
        QVERIFY2(lower <= oracle.stepTime * (1 + 1e-9),
                 qPrintable(QStringLiteral("gap %1, searched %2, brute force %3")
                                .arg(*r->report.optimalityGap)
                                .arg(r->evaluation->stepTime, 0, 'g', 12)
                                .arg(oracle.stepTime, 0, 'g', 12)));
        if (fraction >= 4)
            QCOMPARE(*r->report.optimalityGap, 0.0);
        // Known gap: within one settings combination memory is handled by a Lagrangian weight, which
        // reaches only plans on the lower convex hull of (time, additive memory); a constrained optimum
        // inside the hull is missed and the answer is slower by at most the reported gap above. Under
        // alpha-beta collectives without coalescing it happened here at a quarter of the memory
        // (data=2,model=2, no recomputation, 2 micro-batches: 1.0001x slower); with buckets and NCCL's
        // latencies every fraction below reaches the optimum (measured: searched / brute force = 1).
        QVERIFY2(std::abs(r->evaluation->stepTime - oracle.stepTime) <= 1e-9 * oracle.stepTime,
                 QByteArray::number(r->evaluation->stepTime / oracle.stepTime, 'g', 12).prepend(("searched " + r->plan.mesh.toString() + " z" + std::to_string(r->plan.settings.zeroStage) + " r" +
                              std::to_string(int(r->plan.settings.recompute)) + " m" +
                              std::to_string(r->plan.settings.microbatches) + " " + r->report.chosenBy() +
                              ": searched / brute force = ").c_str())
                     .constData());
    }
    void neverSlowerThanAnyBaselineInTheSpace() {
        // The floor: every registry baseline with every recomputation and micro-batch count, on every mesh.
        const Model model = smallMlp();
        const Cluster c = halfMemoryCluster(model);
        const Graph g = model.build(1);
        const auto r = jointSearch(model, g, c);
        for (const Mesh& mesh : candidateMeshes(c.deviceCount(), c.devicesPerNode())) {
            const auto data = mesh.find("data");
            const SettingsSpace space = settingsSpace(base(), OpenSettings::all(), model.params.batch,
                                                      data ? mesh.size(*data) : 1);
            for (const BaselineEntry& b : baselineRegistry())
                for (Recompute rc : space.recomputes)
                    for (int m : space.microbatches) {
                        const Graph gm = model.build(m);
                        StepSettings s = base();
                        s.recompute = rc;
                        s.microbatches = m;
                        Plan plan;
                        try {
                            plan = baselinePlan(gm, mesh, b.spec, s);
                        } catch (const std::exception&) {
                            continue;
                        }
                        const auto e = evaluate(CostModel(gm, c, mesh, plan.settings), plan);
                        if (e->feasible)
                            QVERIFY2(r->evaluation->feasible && r->evaluation->stepTime <= e->stepTime * (1 + 1e-9),
                                     (b.spec + " on " + mesh.toString()).c_str());
                    }
        }
    }
    void chosenSettingsRoundTripThroughThePlan() {
        // What the search chose is the plan's: re-evaluating the plan on its own graph gives its figures.
        const Model model = smallMlp();
        const Cluster c = halfMemoryCluster(model);
        const Graph g = model.build(1);
        const auto r = jointSearch(model, g, c);
        const Graph rebuilt = model.build(r->plan.settings.microbatches);
        QCOMPARE(int(rebuilt.ops().size()), int(r->graph->ops().size()));
        const auto e = evaluate(CostModel(rebuilt, c, r->plan.mesh, r->plan.settings), r->plan);
        QCOMPARE(e->stepTime, r->evaluation->stepTime);
        QCOMPARE(e->peakMemory, r->evaluation->peakMemory);
    }
};

QTEST_GUILESS_MAIN(TestJointSearch)
#include "tst_joint_search.moc"
