// The only file that speaks Graphviz (cgraph + gvc).

#include "graph_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <stdexcept>
#include <string>

namespace shardscope::ui {

namespace {

/// Graphviz is not reentrant: every layout runs under this lock.
std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

/// Graphviz takes `char*` for names and values it does not modify.
char* text(const std::string& s) { return const_cast<char*>(s.c_str()); }

void set(void* object, const std::string& name, const std::string& value) {
    agsafeset(object, text(name), text(value), text(""));
}

/// Owns the context and the graph, so every exit path frees them.
class GraphvizSession {
public:
    GraphvizSession() : context_(gvContext()) {
        static const std::string name = "g";
        graph_ = agopen(text(name), Agdirected, nullptr);
        if (!context_ || !graph_)
            throw std::runtime_error("Graphviz could not start");
    }
    ~GraphvizSession() {
        if (laidOut_)
            gvFreeLayout(context_, graph_);
        agclose(graph_);
        gvFreeContext(context_);
    }
    GraphvizSession(const GraphvizSession&) = delete;
    GraphvizSession& operator=(const GraphvizSession&) = delete;

    Agraph_t* graph() const { return graph_; }
    void layout() {
        static const std::string engine = "dot";
        if (gvLayout(context_, graph_, engine.c_str()) != 0)
            throw std::runtime_error("Graphviz dot layout failed");
        laidOut_ = true;
    }

private:
    GVC_t* context_ = nullptr;
    Agraph_t* graph_ = nullptr;
    bool laidOut_ = false;
};

} // namespace

LayoutResult layoutGraph(const LayoutRequest& request) {
    const std::lock_guard<std::mutex> lock(graphvizMutex());
    GraphvizSession session;
    Agraph_t* g = session.graph();
    set(g, "rankdir", "TB");
    set(g, "ranksep", std::to_string(request.rankSeparation));
    set(g, "nodesep", std::to_string(request.nodeSeparation));
    set(g, "splines", "spline");
    // Bounded crossing minimisation keeps large graphs (a 96-layer model) to seconds.
    set(g, "mclimit", request.nodes.size() > 400 ? "0.3" : "1");
    set(g, "nslimit", request.nodes.size() > 400 ? "2" : "10");
    std::vector<Agnode_t*> nodes;
    nodes.reserve(request.nodes.size());
    for (std::size_t i = 0; i < request.nodes.size(); ++i) {
        const std::string name = "n" + std::to_string(i);
        Agnode_t* n = agnode(g, text(name), 1);
        set(n, "shape", "box");
        set(n, "fixedsize", "true");
        set(n, "width", std::to_string(request.nodes[i].width / 72.0));
        set(n, "height", std::to_string(request.nodes[i].height / 72.0));
        set(n, "label", "");
        nodes.push_back(n);
    }
    std::vector<Agedge_t*> edges;
    edges.reserve(request.edges.size());
    for (std::size_t i = 0; i < request.edges.size(); ++i) {
        const LayoutEdge& e = request.edges[i];
        const std::string name = "e" + std::to_string(i);
        edges.push_back(agedge(g, nodes[static_cast<std::size_t>(e.from)], nodes[static_cast<std::size_t>(e.to)],
                               text(name), 1));
    }
    session.layout();

    // Graphviz puts y upwards with the origin at the bottom left; flip to y downwards.
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y - bb.LL.y;
    auto flip = [&](pointf p) { return LayoutPoint{p.x - bb.LL.x, height - (p.y - bb.LL.y)}; };
    LayoutResult out;
    out.width = bb.UR.x - bb.LL.x;
    out.height = height;
    for (Agnode_t* n : nodes)
        out.centers.push_back(flip(ND_coord(n)));
    for (Agedge_t* e : edges) {
        std::vector<LayoutPoint> path;
        const splines* spl = ED_spl(e);
        if (spl && spl->size > 0) {
            const bezier& bz = spl->list[0];
            for (int k = 0; k < bz.size; ++k)
                path.push_back(flip(bz.list[k]));
            // The spline stops short of the head where the arrowhead starts; end at the arrow tip.
            if (bz.eflag && !path.empty()) {
                const LayoutPoint tip = flip(bz.ep);
                const LayoutPoint last = path.back();
                path.push_back(last);
                path.push_back(tip);
                path.push_back(tip);
            }
        }
        out.edgePaths.push_back(std::move(path));
    }
    return out;
}

} // namespace shardscope::ui
