// The drawn graph: collapsing repeated blocks into one stack node, and the geometry of both
// layouts, Graphviz dot and the layered one for large graphs (nodes inside the drawing,
// dependencies drawn downwards, edges joining their nodes).

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "graph/display_graph.h"
#include "graph/graph_layout.h"
#include "graph/layered_layout.h"

#include "engine/io/model_file.h"

#include <algorithm>
#include <set>
#include <stop_token>

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
        const LayoutRequest r = inceptionRequest();
        checkGeometry(r, layoutGraph(r));
    }
    void layeredLayoutKeepsTheSameContract() {
        const LayoutRequest r = inceptionRequest();
        const LayoutResult out = layoutLayered(r);
        checkGeometry(r, out);
        // No two nodes overlap: boxes of one layer are at least 120 points apart.
        std::vector<std::pair<double, double>> byRow;
        for (const LayoutPoint& c : out.centers)
            byRow.push_back({c.y, c.x});
        std::sort(byRow.begin(), byRow.end());
        for (std::size_t i = 1; i < byRow.size(); ++i)
            if (byRow[i].first == byRow[i - 1].first)
                QVERIFY(byRow[i].second - byRow[i - 1].second >= 120 - 1e-6);
    }
    void layeredLayoutDrawsAChainAsOneColumn() {
        // 0 -> 1 -> 2 -> 3: one node per layer, all centred on one vertical line, 40 + 0.35 in apart.
        LayoutRequest r;
        r.nodes.assign(4, LayoutNode{120, 40});
        r.edges = {{0, 1}, {1, 2}, {2, 3}};
        const LayoutResult out = layoutLayered(r);
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(out.centers[i].x, 60.0);
            QCOMPARE(out.centers[i].y, 20 + double(i) * (40 + 0.35 * 72));
        }
        QCOMPARE(out.width, 120.0);
        QCOMPARE(out.height, 4 * 40 + 3 * 0.35 * 72);
    }
    void layeredLayoutPutsASourceJustAboveItsConsumer() {
        // A chain 0 -> 1 -> 2 -> 3 and a source 4 feeding 3 only: 4 sits on layer 2, beside 2.
        LayoutRequest r;
        r.nodes.assign(5, LayoutNode{120, 40});
        r.edges = {{0, 1}, {1, 2}, {2, 3}, {4, 3}};
        const LayoutResult out = layoutLayered(r);
        QCOMPARE(out.centers[4].y, out.centers[2].y);
        QVERIFY(std::abs(out.centers[4].x - out.centers[2].x) >= 120 + 0.25 * 72 - 1e-6);
    }
    void layeredLayoutHandlesFiftyThousandNodesAndStops() {
        // A fan of 25,000 branches joined by a chain of adds, as a generated model might be: 49,999
        // nodes, far past Graphviz's reach, laid out completely.
        const int branches = 25000;
        LayoutRequest r;
        r.nodes.assign(std::size_t(2 * branches - 1), LayoutNode{120, 40});
        for (int i = 1; i < branches; ++i) {
            const int add = branches + i - 1, previous = i == 1 ? 0 : add - 1;
            r.edges.push_back({previous, add});
            r.edges.push_back({i, add});
        }
        const LayoutResult out = layoutAnySize(r);
        QCOMPARE(out.centers.size(), r.nodes.size());
        for (const LayoutEdge& e : r.edges)
            QVERIFY(out.centers[std::size_t(e.from)].y < out.centers[std::size_t(e.to)].y);
        // A stop requested before the start ends the run at once, with nothing laid out.
        std::stop_source stop;
        stop.request_stop();
        QVERIFY(layoutAnySize(r, stop.get_token()).centers.empty());
    }

private:
    /// Every op of inception-v3 as a 120 x 40 box.
    static LayoutRequest inceptionRequest() {
        const Graph g = loadModel(ModelRequest{"inception-v3", {}, std::nullopt}, 1);
        const DisplayGraph d = buildDisplayGraph(g, graphEdges(g), nullptr);
        LayoutRequest r;
        for (std::size_t i = 0; i < d.nodes.size(); ++i)
            r.nodes.push_back(LayoutNode{120, 40});
        for (const DisplayEdge& e : d.edges)
            r.edges.push_back(LayoutEdge{e.from, e.to});
        return r;
    }
    /// Every node inside the drawing, dependencies drawn downwards, each edge a Bezier path from
    /// its tail's box to its head's box.
    static void checkGeometry(const LayoutRequest& r, const LayoutResult& out) {
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
            const auto& path = out.edgePaths[i];
            QVERIFY(path.size() >= 4 && (path.size() - 1) % 3 == 0);
            QVERIFY(onBoxEdge(path.front(), from));
            QVERIFY(onBoxEdge(path.back(), to));
        }
    }
};

QTEST_GUILESS_MAIN(TestDisplayGraph)
#include "tst_display_graph.moc"
