// Calibration against runs measured on a known cluster: step times made by the engine on a cluster
// whose efficiencies differ from the preset's (GEMMs at 0.45 of peak, the fused attention kernel at
// 0.35, NVLink and the inter-node fabric achieving 0.7x and 0.8x what the preset says) are the
// measurements; fitting the preset to them must reproduce every run and recover
// the GEMM efficiency, which several runs pin down (within 3%: the prior at the preset pulls back). Also the measurements format's errors.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/cluster/cluster_presets.h"
#include "engine/fidelity/calibration.h"
#include "engine/io/measurements_file.h"
#include "engine/util/error.h"

#include <cmath>

using namespace shardscope;

namespace {

MeasuredRun run(const std::string& name, std::vector<std::string> sets, int nodes, const std::string& mesh,
                const std::string& strategy, int batch, AttentionKernel attention) {
    MeasuredRun r;
    r.name = name;
    r.model = "gpt";
    r.sets = std::move(sets);
    r.cluster = "dgx-a100";
    r.nodes = nodes;
    r.mesh = mesh;
    r.strategy = strategy;
    r.batch = batch;
    r.attention = attention;
    return r;
}

Cluster truth() {
    Cluster c = clusterPreset("dgx-a100", 1);
    c.device.efficiency = 0.45;
    c.device.attentionEfficiency = 0.35;
    c.levels[0].efficiency *= 0.7;
    c.levels[1].efficiency *= 0.8;
    return c;
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT
private slots:
    void recoversTheClusterThatMadeTheMeasurements() {
        const std::vector<std::string> wide{"layers=4", "hidden=2048", "heads=16", "seq=2048"};
        std::vector<MeasuredRun> runs{
            run("dp, unfused", wide, 1, "data=8", "dp", 64, AttentionKernel::Unfused),
            run("dp, fused", wide, 1, "data=8", "dp", 64, AttentionKernel::Fused),
            run("megatron in a node", wide, 1, "model=8", "megatron", 8, AttentionKernel::Fused),
            run("dp over 4 nodes", wide, 4, "data=32", "dp", 64, AttentionKernel::Fused),
            run("megatron over 4 nodes", wide, 4, "data=4,model=8", "megatron", 32, AttentionKernel::Fused),
            run("small dp over 16 nodes", {"layers=2"}, 16, "data=128", "dp", 128, AttentionKernel::Fused),
            run("wide dp, unfused", {"layers=2", "hidden=4096", "heads=32", "seq=1024"}, 1, "data=8", "dp", 8,
                AttentionKernel::Unfused),
            run("long fused", {"layers=2", "hidden=1024", "heads=8", "seq=8192"}, 1, "data=8", "dp", 8,
                AttentionKernel::Fused),
            run("megatron-sp over 2 nodes", wide, 2, "data=2,model=8", "megatron-sp", 16, AttentionKernel::Fused)};
        const Cluster made = truth();
        for (MeasuredRun& r : runs)
            r.measured = predictRun(r, made).stepTime;
        const Cluster preset = clusterPreset("dgx-a100", 1);
        const Calibration fit = calibrate(preset, runs);
        double worstBefore = 0;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            worstBefore = std::max(worstBefore, std::abs(fit.before[i] / runs[i].measured - 1));
            // The prior at the preset pulls a little against runs measured without noise: within 0.5%.
            QVERIFY2(std::abs(fit.after[i] / runs[i].measured - 1) < 5e-3,
                     qPrintable(QStringLiteral("%1: fitted / measured %2")
                                    .arg(QString::fromStdString(runs[i].name))
                                    .arg(fit.after[i] / runs[i].measured)));
        }
        QVERIFY(worstBefore > 0.1); // the preset was off by more than 10% somewhere
        QVERIFY2(std::abs(fit.cluster.device.efficiency / 0.45 - 1) < 0.03,
                 qPrintable(QString::number(fit.cluster.device.efficiency)));
        QVERIFY(fit.iterations > 0);
    }
    void aStopRequestEndsTheFitAfterOneIteration() {
        // Runs measured 20% slower than the preset predicts: the fit moves; a stop requested before it
        // starts ends it after its first iteration, reported once, with the best point so far.
        MeasuredRun r;
        r.name = "dp in a node";
        r.model = "gpt";
        r.sets = {"layers=2", "hidden=1024", "heads=16", "seq=1024"};
        r.batch = 8;
        r.cluster = "dgx-a100";
        r.mesh = "data=8";
        r.strategy = "dp";
        const Cluster preset = clusterPreset("dgx-a100", 1);
        r.measured = 1.2 * predictRun(r, preset).stepTime;
        std::stop_source stop;
        stop.request_stop();
        std::vector<std::pair<int, double>> reports;
        const Calibration fit = calibrate(preset, {r}, {}, stop.get_token(),
                                          [&](int it, double cost) { reports.emplace_back(it, cost); });
        QVERIFY(fit.cancelled);
        QCOMPARE(fit.iterations, 1);
        QCOMPARE(reports.size(), std::size_t(1));
        QCOMPARE(reports[0].first, 1);
        QVERIFY(std::abs(fit.after[0] / r.measured - 1) < std::abs(fit.before[0] / r.measured - 1));
        const Calibration whole = calibrate(preset, {r});
        QVERIFY(!whole.cancelled);
        QVERIFY(whole.iterations > 1);
    }
    void measurementErrorsNameTheField() {
        const std::string good = R"({"format": "shardscope-measurements", "version": 1, "runs": [
            {"model": "gpt", "set": {"layers": 2}, "mesh": "data=8", "batch": 64, "step_time_s": 0.5}]})";
        const auto runs = parseMeasurementsJson(good, "m.json", "dgx-a100");
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].sets, std::vector<std::string>{"layers=2"});
        QCOMPARE(runs[0].strategy, std::string("dp"));
        const std::vector<std::pair<std::string, std::string>> bad{
            {R"({"format": "shardscope-measurements", "version": 1, "runs": []})", "runs"},
            {R"({"format": "shardscope-measurements", "version": 1, "runs": [{"model": "gpt", "mesh": "data=8",
                "batch": 64, "step_time_s": -1}]})", "runs[0].step_time_s"},
            {R"({"format": "shardscope-measurements", "version": 1, "runs": [{"model": "gpt", "mesh": "data=8",
                "batch": 64}]})", "step_time_s"},
            {R"({"format": "shardscope-measurements", "version": 1, "runs": [{"model": "gpt", "mesh": "data=8",
                "batch": 64, "step_time_s": 1, "recompute": "some"}]})", "runs[0].recompute"},
            {R"({"format": "shardscope-measurements", "version": 1, "runs": [{"model": "gpt", "mesh": "data=8",
                "batch": 64, "step_time_s": 1, "speed": 3}]})", "speed"}};
        for (const auto& [text, field] : bad) {
            try {
                parseMeasurementsJson(text, "m.json", "dgx-a100");
                QFAIL(("accepted: " + text).c_str());
            } catch (const InputError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("m.json") != std::string::npos && what.find(field) != std::string::npos,
                         what.c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
