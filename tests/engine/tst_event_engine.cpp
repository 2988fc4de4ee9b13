// The simulator's event engine on hand-built programs, each figure worked out in the test: streams run
// at once, a link level's bandwidth is shared by the collectives on it, compute slows beside
// communication, and with overlap off everything runs in program order.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/sim/device_classes.h"
#include "engine/sim/event_engine.h"

using namespace shardscope;

namespace {

// Two nodes of two devices: 100 GB/s inside a node, 10 GB/s between nodes, no latencies, so a
// collective takes exactly its bytes over the bandwidth. Mesh data=2,model=2: model inside a node,
// data across the nodes.
Cluster twoByTwo() {
    Cluster c;
    c.name = "two-by-two";
    c.device.name = "test";
    c.device.peakFlops = {{DType::BF16, 1e15}};
    c.device.memoryBytes = 1e12;
    c.device.memoryBandwidth = 1e12;
    c.levels = {{"node", 2, 100e9, 0, 1, 0}, {"cluster", 2, 10e9, 0, 1, 0}};
    return c;
}

const Mesh kMesh = Mesh::parse("data=2,model=2");
constexpr AxisSet kData = 1, kModel = 2;

/// A program under construction.
struct Program {
    StepProgram p;

    int compute(double seconds, std::vector<int> deps = {}) {
        SimTask t;
        t.stream = Stream::Compute;
        t.event.duration = seconds;
        t.deps = std::move(deps);
        return add(std::move(t));
    }
    /// An all-gather of `bytes` over `axes` on `stream`: over data (2 devices across nodes) it sends
    /// bytes / 2 across the 10 GB/s link.
    int gather(Stream stream, AxisSet axes, double bytes, std::vector<int> deps = {}) {
        SimTask t;
        t.stream = stream;
        t.event.stream = stream;
        t.event.collective = true;
        t.event.kind = CollectiveKind::AllGather;
        t.event.axes = axes;
        t.deps = std::move(deps);
        t.parts.push_back(CommPart{CollectiveKind::AllGather, axes, bytes, 1, 0});
        return add(std::move(t));
    }
    int add(SimTask t) {
        t.event.stream = t.stream;
        t.event.task = int(p.tasks.size());
        t.event.name = "task " + std::to_string(t.event.task);
        p.tasks.push_back(std::move(t));
        return p.tasks.back().event.task;
    }
};

/// Runs `program` on the data=2,model=2 mesh; returns each task's (start, end) on device 0's class.
std::vector<std::pair<double, double>> run(const Program& program, bool overlap, double slowdown) {
    const Cluster cluster = twoByTwo();
    const DeviceClasses classes = deviceClasses(cluster, kMesh, {kData, kModel});
    std::vector<CommModel> comm;
    for (std::size_t c = 0; c < classes.size(); ++c)
        comm.emplace_back(cluster, kMesh, classes.representative(c));
    EngineSetup setup;
    setup.program = &program.p;
    for (const CommModel& m : comm)
        setup.comm.push_back(&m);
    setup.resident.assign(comm.size(), 0.0);
    setup.peers = &classes.peers;
    setup.overlap = overlap;
    setup.slowdown = slowdown;
    const EngineRun out = runEngine(setup);
    std::vector<std::pair<double, double>> times(program.p.tasks.size(), {-1, -1});
    for (const SimEvent& e : out.lines.front().timeline.events)
        times[std::size_t(e.task)] = {e.start, e.start + e.duration};
    return times;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

} // namespace

class TestEventEngine : public QObject {
    Q_OBJECT
private slots:
    void collectivesOfOneLevelShareItsBandwidth() {
        // Two 1 GB all-gathers over data: 0.5 GB each across the 10 GB/s link, 50 ms alone; on two
        // streams at once each moves at 5 GB/s, both end at 100 ms.
        Program prog;
        const int a = prog.gather(Stream::Gather, kData, 1e9);
        const int b = prog.gather(Stream::Reduce, kData, 1e9);
        const auto t = run(prog, true, 0);
        QVERIFY(near(t[std::size_t(a)].second, 0.1));
        QVERIFY(near(t[std::size_t(b)].second, 0.1));
        // Half the bytes on one: it ends at 50 ms (25 ms of work at half rate), the other then runs
        // alone: 25 ms of work left at full rate, 75 ms.
        Program uneven;
        const int c = uneven.gather(Stream::Gather, kData, 0.5e9);
        const int d = uneven.gather(Stream::Reduce, kData, 1e9);
        const auto u = run(uneven, true, 0);
        QVERIFY(near(u[std::size_t(c)].second, 0.05));
        QVERIFY(near(u[std::size_t(d)].second, 0.075));
    }
    void collectivesOfDifferentLevelsRunAtOnce() {
        // 1 GB over data (50 ms across nodes) beside 2 GB over model (1 GB across the 100 GB/s
        // node link, 10 ms): neither slows the other.
        Program prog;
        const int a = prog.gather(Stream::Gather, kData, 1e9);
        const int b = prog.gather(Stream::Tensor, kModel, 2e9);
        const auto t = run(prog, true, 0);
        QVERIFY(near(t[std::size_t(a)].second, 0.05));
        QVERIFY(near(t[std::size_t(b)].second, 0.01));
    }
    void computeSlowsBesideCommunication() {
        // A 10 ms compute beside a 5 ms all-gather (0.1 GB over data), slowdown 0.189: while the
        // gather runs the compute does 5 / 1.189 ms of work; the rest at full rate.
        Program prog;
        const int gemm = prog.compute(0.010);
        const int ag = prog.gather(Stream::Gather, kData, 0.1e9);
        const auto t = run(prog, true, 0.189);
        QVERIFY(near(t[std::size_t(ag)].second, 0.005));
        QVERIFY(near(t[std::size_t(gemm)].second, 0.005 + (0.010 - 0.005 / 1.189)));
        // A collective longer than the compute: compute 2 ms takes 2 x 1.189 ms; the gather its 5 ms.
        Program longer;
        const int small = longer.compute(0.002);
        const int ag2 = longer.gather(Stream::Gather, kData, 0.1e9);
        const auto u = run(longer, true, 0.189);
        QVERIFY(near(u[std::size_t(small)].second, 0.002 * 1.189));
        QVERIFY(near(u[std::size_t(ag2)].second, 0.005));
    }
    void dependenciesAndStreamOrder() {
        // compute 1 ms -> gather (5 ms) -> compute 2 ms; a second gather queues behind the first on
        // its stream: ends at 1 + 5 + 5 = 11 ms, not sharing the link with the first.
        Program prog;
        const int c0 = prog.compute(0.001);
        const int g0 = prog.gather(Stream::Gather, kData, 0.1e9, {c0});
        const int g1 = prog.gather(Stream::Gather, kData, 0.1e9, {c0});
        const int c1 = prog.compute(0.002, {g0});
        const auto t = run(prog, true, 0);
        QVERIFY(near(t[std::size_t(g0)].first, 0.001));
        QVERIFY(near(t[std::size_t(c1)].first, 0.006));
        QVERIFY(near(t[std::size_t(c1)].second, 0.008));
        QVERIFY(near(t[std::size_t(g1)].first, 0.006));
        QVERIFY(near(t[std::size_t(g1)].second, 0.011));
    }
    void overlapOffRunsInProgramOrder() {
        // The same program serialised: 1 + 5 + 5 + 2 ms, and no slowdown.
        Program prog;
        const int c0 = prog.compute(0.001);
        prog.gather(Stream::Gather, kData, 0.1e9, {c0});
        const int g1 = prog.gather(Stream::Gather, kData, 0.1e9, {c0});
        const int c1 = prog.compute(0.002);
        const auto t = run(prog, false, 0.189);
        QVERIFY(near(t[std::size_t(g1)].second, 0.011));
        QVERIFY(near(t[std::size_t(c1)].first, 0.011));
        QVERIFY(near(t[std::size_t(c1)].second, 0.013));
    }
};

QTEST_GUILESS_MAIN(TestEventEngine)
#include "tst_event_engine.moc"
