// shardscope-gui-bench: frame and layout times of the window's views, offscreen. Figures are
// medians of several runs; targets are reported, never asserted.
//
//   QT_QPA_PLATFORM=offscreen build/tests/bench/shardscope-gui-bench

#include "graph/graph_view.h"
#include "main_window.h"
#include "session/session.h"
#include "timeline/timeline_view.h"

#include "engine/cluster/cluster_presets.h"
#include "engine/io/model_file.h"
#include "engine/plans/baselines.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

using namespace shardscope;
using namespace shardscope::ui;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void row(const char* name, int items, double ms, const char* target) {
    std::printf("%-52s %8d %10.2f ms  %s\n", name, items, ms, target);
    std::fflush(stdout);
}

/// Median time of `runs` synchronous repaints of `view`; with `zooming`, each frame first zooms in
/// or out by 10% (as a wheel step does), so no item's cached pixmap can be reused.
double paintMs(QGraphicsView* view, int runs, bool zooming = false) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        if (zooming) {
            const double f = i % 2 ? 1 / 1.1 : 1.1;
            view->scale(f, f);
        }
        view->viewport()->repaint();
        times.push_back(t.nsecsElapsed() / 1e6);
    }
    return median(times);
}

/// Median time of `runs` synchronous repaints of `viewport`; with `zoom`, each frame first zooms the
/// timeline in or out by 10% around the middle.
double paintMs(QWidget* viewport, int runs, TimelineView* zoom = nullptr) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        if (zoom)
            zoom->zoomBy(i % 2 ? 1 / 1.1 : 1.1, 600);
        viewport->repaint();
        times.push_back(t.nsecsElapsed() / 1e6);
    }
    return median(times);
}

bool waitFor(const std::function<bool()>& done) {
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < 300000)
        QTest::qWait(5);
    return done();
}

} // namespace

/// Timeline frames over a real simulation with about a million events per device: gpt3-175b on
/// 1024 GPUs, megatron-sp + ZeRO-3, 256 micro-batches.
void benchTimeline() {
    StepSettings settings;
    settings.microbatches = 256;
    const Graph graph = loadModel(ModelRequest{"gpt3-175b", {}, 4096}, settings.microbatches);
    const Cluster cluster = clusterPreset("dgx-a100", 128);
    const Mesh mesh = Mesh::parse("data=128,model=8");
    const Plan plan = baselinePlan(graph, mesh, "megatron-sp+zero3", settings);
    const CostModel model(graph, cluster, mesh, plan.settings);
    QElapsedTimer t;
    t.start();
    const auto sim = simulate(model, plan, SimOptions{});
    const double simulateMs = t.nsecsElapsed() / 1e6;
    const int events = int(sim->eventCount());
    row("simulate gpt3-175b, 1024 GPUs, 256 micro-batches", events, simulateMs, "in the background");
    std::vector<double> arrange;
    std::shared_ptr<const TimelineData> data;
    for (int i = 0; i < 3; ++i) {
        t.restart();
        data = buildTimelineData(sim, cluster.devicesPerNode());
        arrange.push_back(t.nsecsElapsed() / 1e6);
    }
    row("timeline: arrange the events for drawing", events, median(arrange), "in the background");

    Session session(nullptr, 1);
    TimelineView view(&session);
    view.resize(1400, 900);
    view.show();
    view.setData(data);
    for (int node = 1; node < 128; ++node)
        view.toggleNode(node); // every node unfolded: 2048 lanes to scroll through
    QTest::qWait(20);
    view.fitAll();
    row("timeline, 1024 devices, whole step: one frame", events, paintMs(view.viewport(), 15), "under 16 ms");
    row("timeline, 1024 devices, whole step, zooming: one frame", events, paintMs(view.viewport(), 15, &view),
        "under 16 ms");
    view.zoomBy(200, 700);
    row("timeline, 1024 devices, 200x zoom: one frame", events, paintMs(view.viewport(), 15), "under 16 ms");
    row("timeline, 1024 devices, 200x zoom, zooming: one frame", events, paintMs(view.viewport(), 15, &view),
        "under 16 ms");
}

/// A model file with `branches` matmuls reading one input, joined by a chain of adds (2 x branches
/// - 1 ops, no repeated blocks to fold): more than Graphviz dot can lay out in reasonable time.
void writeFanModel(const std::string& path, int branches) {
    using nlohmann::json;
    json tensors = json::array({{{"name", "x"}, {"shape", {64, 1024}}, {"dtype", "bf16"}, {"role", "input"}}});
    json ops = json::array();
    const auto i = [](const char* prefix, int k) { return prefix + std::to_string(k); };
    for (int k = 0; k < branches; ++k) {
        tensors.push_back({{"name", i("w", k)}, {"shape", {1024, 256}}, {"dtype", "bf16"}, {"role", "parameter"}});
        tensors.push_back({{"name", i("h", k)}, {"shape", {64, 256}}, {"dtype", "bf16"}, {"role", "activation"}});
        ops.push_back({{"name", i("fc", k)}, {"kind", "matmul"}, {"inputs", {"x", i("w", k)}}, {"outputs", {i("h", k)}},
                       {"rule", "([b,h],[h,f])->([b,f])"}, {"hints", {{"batch", "b"}, {"tensor", "f"}}}});
    }
    for (int k = 1; k < branches; ++k) {
        tensors.push_back({{"name", i("s", k)}, {"shape", {64, 256}}, {"dtype", "bf16"}, {"role", "activation"}});
        ops.push_back({{"name", i("add", k)}, {"kind", "add"}, {"inputs", {k == 1 ? std::string("h0") : i("s", k - 1), i("h", k)}},
                       {"outputs", {i("s", k)}}, {"rule", "([b,f],[b,f])->([b,f])"}, {"hints", {{"batch", "b"}}}});
    }
    std::ofstream(path) << json{{"format", "shardscope-model"}, {"version", 1}, {"name", "fan"}, {"tensors", tensors}, {"ops", ops}};
}

/// Opening a 49,999-op model in the whole window: time until every view has settled, and the UI
/// thread's longest stall meanwhile (a 2 ms timer's longest gap).
void benchLargeModel() {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("fan.model.json")).toStdString();
    writeFanModel(path, 25000);
    std::vector<double> opens, stalls;
    for (int run = 0; run < 3; ++run) {
        MainWindow window(nullptr, 1);
        window.resize(1400, 900);
        window.show();
        QElapsedTimer clock;
        qint64 last = 0, longest = 0;
        QTimer ticker;
        ticker.setTimerType(Qt::PreciseTimer);
        QObject::connect(&ticker, &QTimer::timeout, [&] {
            const qint64 now = clock.nsecsElapsed();
            longest = std::max(longest, now - last);
            last = now;
        });
        ScenarioRequest r;
        r.model.spec = path;
        r.cluster = "dgx-a100";
        clock.start();
        ticker.start(2);
        window.session()->loads().openScenario(r);
        QTest::qWait(50);
        if (!waitFor([&] { return window.settled(); }))
            return;
        opens.push_back(clock.nsecsElapsed() / 1e6);
        stalls.push_back(longest / 1e6);
    }
    row("window: open a 49,999-op model until settled", 49999, median(opens), "in the background");
    row("window: longest UI-thread stall while opening it", 49999, median(stalls), "under 100 ms");
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    std::printf("%-52s %8s %13s  %s\n", "case", "items", "median", "target");
    benchLargeModel();
    benchTimeline();
    Session session(nullptr, 1);
    GraphView view(&session);
    view.resize(1400, 900);
    view.show();
    ScenarioRequest r;
    r.model.spec = "gpt3-175b";
    r.cluster = "dgx-a100";
    r.nodes = 128;
    r.mesh = "data=128,model=8";
    r.strategy = "megatron-sp";
    session.loads().openScenario(r);
    if (!waitFor([&] { return !session.busy() && !view.layoutBusy() && view.displayGraph(); }))
        return 1;
    auto* graphics = view.findChild<QGraphicsView*>();
    const int collapsed = int(view.scene()->items().size());
    view.fitToWindow();
    row("graph view, gpt3-175b collapsed, fit: one frame", collapsed, paintMs(graphics, 15),
        "under 16 ms");

    std::vector<double> layouts;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer t;
        t.start();
        view.setExpanded(true);
        if (!waitFor([&] { return !view.layoutBusy(); }))
            return 1;
        layouts.push_back(t.nsecsElapsed() / 1e6);
        if (i < 2)
            view.setExpanded(false), waitFor([&] { return !view.layoutBusy(); });
    }
    const int expanded = int(view.scene()->items().size());
    row("graph view, gpt3-175b expanded: layout (background)", expanded, median(layouts),
        "in the background; the window stays responsive");
    view.fitToWindow();
    row("graph view, gpt3-175b expanded, fit width: one frame", expanded, paintMs(graphics, 15),
        "under 16 ms");
    graphics->resetTransform();
    graphics->centerOn(view.scene()->sceneRect().center());
    row("graph view, gpt3-175b expanded, 100%: one frame", expanded, paintMs(graphics, 15),
        "under 16 ms");
    row("graph view, gpt3-175b expanded, 100%, zooming: one frame", expanded, paintMs(graphics, 15, true),
        "under 16 ms");
    graphics->scale(0.05, 0.05);
    row("graph view, gpt3-175b expanded, 5%: one frame", expanded, paintMs(graphics, 15), "under 16 ms");
    row("graph view, gpt3-175b expanded, 5%, zooming: one frame", expanded, paintMs(graphics, 15, true),
        "under 16 ms");
    if (argc > 1)
        graphics->viewport()->grab().save(QString::fromLocal8Bit(argv[1]));
    return 0;
}
