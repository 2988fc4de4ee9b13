#include "commands.h"

#include "engine/cost/cost_model.h"
#include "engine/evaluation/evaluation.h"
#include "engine/io/evaluation_json.h"
#include "engine/io/plan_file.h"
#include "engine/sim/simulator.h"
#include "engine/util/units.h"

#include <cstdio>
#include <map>

namespace shardscope::cli {

namespace {

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

/// The stages: one line each, and the schedule's bubble.
void printPipeline(const Evaluation& e, std::ostream& out) {
    const PipelineReport& p = e.pipeline;
    char line[256];
    std::snprintf(line, sizeof line, "pipeline   %zu stages, %s%s, %d micro-batch%s: bubble %.1f%% of the pipelined step%s\n",
                  p.stages.size(), std::string(scheduleName(p.schedule)).c_str(),
                  p.virtualStages > 1 ? (" x " + std::to_string(p.virtualStages) + " virtual stages").c_str() : "",
                  p.microbatches, p.microbatches == 1 ? "" : "es", 100 * p.bubbleFraction,
                  p.balanced ? "" : "; uneven stages: the slowest sets the pace");
    out << line;
    for (const StageReport& s : p.stages) {
        std::snprintf(line, sizeof line, "  stage %-3d %4d ops  %s per micro-batch (fwd %s, bwd %s, comm %s, send %s)  peak %s%s%s\n",
                      s.stage, s.ops, formatSeconds(s.perMicrobatch()).c_str(), formatSeconds(s.forward).c_str(),
                      formatSeconds(s.backward).c_str(), formatSeconds(s.comm).c_str(), formatSeconds(s.transfer).c_str(),
                      formatBytes(s.peakMemory).c_str(), s.stage == p.slowest ? "  slowest" : "",
                      s.feasible ? "" : "  DOES NOT FIT");
        out << line;
    }
}

} // namespace

void printEvaluationTable(const Evaluation& e, const Graph& graph, const Cluster& cluster, const StepSettings& settings,
                          std::ostream& out, std::optional<double> simulatedStep) {
    out << "model      " << graph.name << " (" << formatCount(e.paramsTotal) << " parameters, "
        << formatCount(e.flopsPerStep) << "FLOP per step)\n";
    out << "cluster    " << cluster.name << ", " << e.devices << " x " << cluster.device.name << "\n";
    out << "mesh       " << e.mesh.toString() << "   strategy " << e.planName << "   precision "
        << precisionName(settings.precision) << "   loss " << lossName(settings.loss) << "\n\n";
    if (simulatedStep)
        out << "step time  " << formatSeconds(*simulatedStep) << " simulated\n";
    out << (simulatedStep ? "estimate   " : "step time  ") << formatSeconds(e.stepTime)
        << " analytic = compute " << formatSeconds(e.computeTime) << " + slowdown beside communication "
        << formatSeconds(e.slowdownTime) << " + exposed communication " << formatSeconds(e.exposedCommTime)
        << " (of " << formatSeconds(e.commTime) << ") + optimizer " << formatSeconds(e.optimizerTime)
        << (e.pipeline.active() ? " + pipeline bubble " + formatSeconds(e.bubbleTime) : std::string()) << "\n";
    if (e.pipeline.active())
        printPipeline(e, out);
    out << "memory     " << formatBytes(e.peakMemory) << " of " << formatBytes(e.memoryCapacity)
        << " per device: parameters " << formatBytes(e.memory.parameters) << ", gradients "
        << formatBytes(e.memory.gradients) << ", optimizer " << formatBytes(e.memory.optimizer) << ", activations "
        << formatBytes(e.memory.activations) << ", buffers " << formatBytes(e.buffers) << "\n";
    out << "traffic    " << formatBytes(e.commBytesPerDevice) << " sent per device per step\n";
    out << (e.feasible ? "feasible   yes\n" : "feasible   NO: " + e.overflow + "\n");

    // Communication by kind and purpose.
    std::map<std::string, std::pair<double, int>> byKind;
    for (const OpReport& r : e.perOp)
        for (const CollectiveCost& c : r.collectives) {
            auto& entry = byKind[std::string(collectiveName(c.kind)) + " (" + std::string(purposeName(c.purpose)) + ")"];
            entry.first += c.totalTime();
            entry.second += c.count;
        }
    if (!byKind.empty()) {
        out << "\ncommunication by kind\n";
        for (const auto& [k, v] : byKind)
            out << "  " << pad(k, 34) << pad(std::to_string(v.second) + " x", 10) << formatSeconds(v.first) << "\n";
    }
    out << "\n" << pad("op", 36) << pad("kind", 14) << pad("strategy", 22) << pad("compute", 12) << pad("comm", 12)
        << "memory\n";
    for (const OpReport& r : e.perOp) {
        const Op& op = graph.op(r.op);
        out << pad(op.name, 36) << pad(std::string(opKindName(op.kind)), 14) << pad(r.strategy, 22)
            << pad(formatSeconds(r.computeTime), 12) << pad(formatSeconds(r.commTime), 12)
            << formatBytes(r.memory.sum()) << "\n";
    }
}

int runEvaluate(const CliOptions& options, std::ostream& out) {
    const Scenario s = loadScenario(options.scenario);
    const CostModel model(s.graph, s.cluster, s.plan.mesh, s.plan.settings);
    const auto e = evaluate(model, s.plan);
    // The plan's step time is its simulated step (docs/DESIGN.md, Overlap); the breakdown is analytic.
    SimOptions sim;
    sim.overlap = s.plan.settings.overlap;
    sim.timelines = false;
    const double simulated = simulate(model, s.plan, sim)->stepTime;
    if (!options.planOut.empty())
        savePlan(options.planOut, s.plan, *s.graph, e.get());
    if (options.json) {
        auto j = evaluationToJson(*e, *s.graph, simulated);
        j["cluster"] = s.cluster->name;
        out << j.dump(1) << "\n";
    } else {
        printEvaluationTable(*e, *s.graph, *s.cluster, s.plan.settings, out, simulated);
    }
    return 0;
}

} // namespace shardscope::cli
