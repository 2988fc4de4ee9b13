#pragma once
// Helpers shared by the window tests: waiting for background work, and telling a picture from a
// blank one.

#include "main_window.h"

#include <QElapsedTimer>
#include <QHash>
#include <QImage>
#include <QTest>

namespace shardscope::ui::testing {

/// The two-layer gpt on one DGX A100 node, mesh data=4,model=2, starting from baseline `strategy`.
inline ScenarioRequest gptScenario(const std::string& strategy) {
    ScenarioRequest r;
    r.model.spec = "gpt";
    r.model.sets = {"layers=2"};
    r.cluster = "dgx-a100";
    r.mesh = "data=4,model=2";
    r.strategy = strategy;
    return r;
}

/// An 8-layer GPT at batch 64 with `strategy` on `nodes` DGX A100 nodes and `mesh`.
inline ScenarioRequest eightLayerScenario(const std::string& strategy, int nodes, const std::string& mesh) {
    ScenarioRequest r = gptScenario(strategy);
    r.model.sets = {"layers=8", "batch=64"};
    r.nodes = nodes;
    r.mesh = mesh;
    return r;
}

/// Processes events until `w` has no background work left (at most two minutes); true if settled.
inline bool waitSettled(MainWindow& w) {
    QElapsedTimer clock;
    clock.start();
    while (!w.settled() && clock.elapsed() < 120000)
        QTest::qWait(5);
    QTest::qWait(20);
    return w.settled();
}

/// Fraction of the image's pixels (sampled every other row and column) that differ from its most
/// common colour: 0 for a blank picture.
inline double inkFraction(const QImage& image) {
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            ++counts[image.pixel(x, y)];
    int most = 0, total = 0;
    for (int c : counts) {
        most = std::max(most, c);
        total += c;
    }
    return total ? 1.0 - double(most) / total : 0;
}

} // namespace shardscope::ui::testing
