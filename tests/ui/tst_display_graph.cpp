// The drawn graph: collapsing repeated blocks into one stack node, and the Graphviz layout's
// geometry (every node inside the drawing, dependencies drawn downwards, edges joining their nodes).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "graph/display_graph.h"
#include "graph/graph_layout.h"

#include "engine/io/model_file.h"

#include <set>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
/// True when `p` lies on the outline of the 120 x 40 box centred on `c` (within 2 points).
bool onBoxEdge(const LayoutPoint& p, const LayoutPoint& c) {
    const double dx = std::abs(p.x - c.x), dy = std::abs(p.y - c.y);
    return dx <= 62 && dy <= 22 && (dx >= 58 || dy >= 18);
}
} // namespace

class TestDisplayGraph : public QObject {
    Q_OBJECT
private slots:
    void collapsesTheRepeatedBlocksIntoOneStack() {
        const Graph g = loadModel(ModelRequest{"gpt", {"layers=4"}, std::nullopt}, 1);
        const auto edges = graphEdges(g);
        const auto blocks = findRepeatedBlocks(g);
        QVERIFY(blocks);
        QCOMPARE(blocks->count(), 4);
        const DisplayGraph d = buildDisplayGraph(g, edges, &*blocks);
        // Every op of the four blocks in one node; every other op on its own.
        const std::size_t stacked = std::size_t(blocks->count()) * std::size_t(blocks->period());
        QCOMPARE(d.nodes.size(), g.ops().size() - stacked + 1);
        QVERIFY(d.stackNode >= 0);
        QCOMPARE(d.nodes[std::size_t(d.stackNode)].members.size(), stacked);
        QCOMPARE(d.blocks, 4);
        // Each model edge is drawn once, unless both its ends are in the stack.
        std::size_t drawn = 0, internal = 0;
        for (const DisplayEdge& e : d.edges) {
            QVERIFY(e.from != e.to);
            drawn += e.edges.size();
        }
        for (const Edge& e : edges)
            internal += d.nodeOfOp[e.from.index()] == d.stackNode && d.nodeOfOp[e.to.index()] == d.stackNode ? 1 : 0;
        QCOMPARE(drawn + internal, edges.size());
        // Drawn edges between the same two nodes are merged.
        std::set<std::pair<int, int>> ends;
        for (const DisplayEdge& e : d.edges)
            QVERIFY(ends.insert({e.from, e.to}).second);
    }
    void expandedShowsEveryOp() {
        const Graph g = loadModel(ModelRequest{"gpt", {"layers=2"}, std::nullopt}, 1);
        const DisplayGraph d = buildDisplayGraph(g, graphEdges(g), nullptr);
        QCOMPARE(d.nodes.size(), g.ops().size());
        QCOMPARE(d.stackNode, -1);
        for (OpId o : g.topoOrder())
            QCOMPARE(d.nodes[std::size_t(d.nodeOfOp[o.index()])].op, o);
    }
    void layoutPlacesNodesInsideAndDependenciesDownwards() {
        const Graph g = loadModel(ModelRequest{"inception-v3", {}, std::nullopt}, 1);
        const DisplayGraph d = buildDisplayGraph(g, graphEdges(g), nullptr);
        LayoutRequest r;
        for (std::size_t i = 0; i < d.nodes.size(); ++i)
            r.nodes.push_back(LayoutNode{120, 40});
        for (const DisplayEdge& e : d.edges)
            r.edges.push_back(LayoutEdge{e.from, e.to});
        const LayoutResult out = layoutGraph(r);
        QCOMPARE(out.centers.size(), r.nodes.size());
        QCOMPARE(out.edgePaths.size(), r.edges.size());
        for (const LayoutPoint& c : out.centers) {
            QVERIFY(c.x >= 60 - 1e-6 && c.x <= out.width - 60 + 1e-6);
            QVERIFY(c.y >= 20 - 1e-6 && c.y <= out.height - 20 + 1e-6);
        }
        for (std::size_t i = 0; i < r.edges.size(); ++i) {
            const LayoutPoint& from = out.centers[std::size_t(r.edges[i].from)];
            const LayoutPoint& to = out.centers[std::size_t(r.edges[i].to)];
            QVERIFY2(from.y < to.y, "a dependency points down the page");
            // A Bezier path of 1 + 3k points from the tail node's box to the head node's box.
            const auto& path = out.edgePaths[i];
            QVERIFY(path.size() >= 4 && (path.size() - 1) % 3 == 0);
            QVERIFY(onBoxEdge(path.front(), from));
            QVERIFY(onBoxEdge(path.back(), to));
        }
    }
};

QTEST_GUILESS_MAIN(TestDisplayGraph)
#include "tst_display_graph.moc"
