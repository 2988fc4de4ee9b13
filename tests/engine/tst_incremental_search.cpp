// Re-search after an edit (SearchRequest::previous): the bounds a search proved carry over to the
// same problem with more locks, and only then; the re-search answers what a search from scratch with
// the same locks answers, while tabling and solving fewer combinations.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/cluster/cluster_presets.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/search/search.h"

using namespace shardscope;

namespace {

/// A 4-layer Llama on two DGX A100 nodes, every setting open: pipelined and unpipelined meshes.
SearchRequest request() {
    ModelParams p = modelPreset("llama").params;
    p.layers = 4;
    p.batch = 32;
    SearchRequest r;
    r.graph = std::make_shared<const Graph>(buildModel("llama", p, 1, "llama"));
    r.cluster = std::make_shared<const Cluster>(clusterPreset("dgx-a100", 2));
    r.open = OpenSettings::all();
    r.family = GraphFamily{p.batch, [p](int m) { return buildModel("llama", p, m, "llama"); }};
    r.threads = 1;
    return r;
}

/// `plan` with the first parameterised matmul of its third block locked to another strategy that
/// moves one axis (a researcher's override).
Plan edited(const SearchResult& result) {
    Plan plan = result.plan;
    const Graph& g = *result.graph;
    const auto blocks = findRepeatedBlocks(g);
    for (OpId o : blocks->blocks[2]) {
        const Op& op = g.op(o);
        if (op.kind != OpKind::MatMul)
            continue;
        for (const OpStrategy& s : enumerateStrategies(op, plan.mesh)) {
            int moved = 0;
            for (std::size_t a = 0; a < s.factorOfAxis.size(); ++a)
                moved += s.factorOfAxis[a] != plan.ops[o.index()].strategy.factorOfAxis[a] ? 1 : 0;
            if (moved == 1) {
                plan.ops[o.index()].strategy = s;
                plan.ops[o.index()].locked = true;
                return plan;
            }
        }
    }
    return plan;
}

std::vector<std::optional<OpStrategy>> locksOf(const Plan& plan) {
    std::vector<std::optional<OpStrategy>> locks(plan.ops.size());
    for (std::size_t v = 0; v < plan.ops.size(); ++v)
        if (plan.ops[v].locked)
            locks[v] = plan.ops[v].strategy;
    return locks;
}

} // namespace

class TestIncrementalSearch : public QObject {
    Q_OBJECT
private slots:
    void reSearchAnswersAsASearchFromScratch() {
        const SearchRequest first = request();
        const auto searched = search(first);
        QVERIFY(searched->memory);
        const Plan edit = edited(*searched);
        QVERIFY(std::any_of(edit.ops.begin(), edit.ops.end(), [](const OpChoice& c) { return c.locked; }));

        SearchRequest fresh = first;
        fresh.mesh = edit.mesh;
        fresh.locks = locksOf(edit);
        const auto scratch = search(fresh);

        SearchRequest again = fresh;
        again.previous = searched->memory;
        again.start = edit;
        const auto incremental = search(again);
        QVERIFY(incremental->report.incremental);
        QVERIFY(!scratch->report.incremental);
        // The same answer (the lock kept), found with less work.
        for (std::size_t v = 0; v < edit.ops.size(); ++v)
            if (edit.ops[v].locked)
                QVERIFY(incremental->plan.ops[v].strategy == edit.ops[v].strategy);
        QVERIFY2(std::abs(incremental->stepTime() - scratch->stepTime()) <= 1e-9 * scratch->stepTime(),
                 qPrintable(QStringLiteral("incremental %1 s, from scratch %2 s")
                                .arg(incremental->stepTime(), 0, 'g', 12)
                                .arg(scratch->stepTime(), 0, 'g', 12)));
        QVERIFY2(incremental->report.combinationsSolved <= scratch->report.combinationsSolved,
                 qPrintable(QStringLiteral("solved %1 vs %2").arg(incremental->report.combinationsSolved)
                                .arg(scratch->report.combinationsSolved)));

        // A starting plan that breaks the lock (the plan before the edit) is not weighed: the answer
        // keeps the lock and is the same.
        SearchRequest stale = again;
        stale.start = searched->plan;
        const auto fromStale = search(stale);
        for (std::size_t v = 0; v < edit.ops.size(); ++v)
            if (edit.ops[v].locked)
                QVERIFY(fromStale->plan.ops[v].strategy == edit.ops[v].strategy);
        QVERIFY(std::abs(fromStale->stepTime() - scratch->stepTime()) <= 1e-9 * scratch->stepTime());

        // As the window asks: the graph of the plan's own micro-batch count, which the first search built.
        SearchRequest window = again;
        window.graph = searched->graph;
        window.settings.microbatches = searched->plan.settings.microbatches;
        const auto fromWindow = search(window);
        QVERIFY(fromWindow->report.incremental);
        QVERIFY(std::abs(fromWindow->stepTime() - scratch->stepTime()) <= 1e-9 * scratch->stepTime());
    }

    void boundsDoNotCarryOverWhenALockGoes() {
        SearchRequest first = request();
        const auto searched = search(first);
        const Plan edit = edited(*searched);
        SearchRequest locked = first;
        locked.mesh = edit.mesh;
        locked.locks = locksOf(edit);
        const auto withLock = search(locked);
        QVERIFY(withLock->memory);
        // Dropping the lock widens the problem: the locked search's bounds no longer hold.
        SearchRequest unlocked = first;
        unlocked.mesh = edit.mesh;
        unlocked.previous = withLock->memory;
        QVERIFY(!search(unlocked)->report.incremental);
        // Another graph, or other fixed settings: neither.
        SearchRequest other = locked;
        other.previous = searched->memory;
        other.settings.overlap = !other.settings.overlap;
        QVERIFY(!search(other)->report.incremental);
        other = locked;
        other.previous = searched->memory;
        QVERIFY(search(other)->report.incremental);
    }
};

QTEST_GUILESS_MAIN(TestIncrementalSearch)
#include "tst_incremental_search.moc"
