#include "commands.h"

#include "engine/io/evaluation_json.h"
#include "engine/io/plan_file.h"
#include "engine/io/tactic_file.h"
#include "engine/tactics/tactic_runner.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runTacticSearch(const CliOptions& options, std::ostream& out) {
    const Scenario s = loadScenario(options.scenario);
    TacticRequest request;
    request.graph = s.graph;
    request.cluster = s.cluster;
    request.mesh = s.plan.mesh;
    request.settings = s.plan.settings;
    request.settings.zeroStage = 0;
    request.settings.zeroAxes = 0;
    request.tactics = loadTactics(options.tacticsPath);
    request.threads = options.threads;
    const auto run = runTactics(request);
    const Evaluation& e = *run->evaluation;
    // The completed plan's simulated step: the last tactic's.
    const std::optional<double> simulated =
        run->stages.empty() ? std::nullopt : std::optional<double>(run->stages.back().step.stepTime);
    if (!options.planOut.empty())
        savePlan(options.planOut, run->plan, *s.graph, &e);
    if (options.json) {
        nlohmann::json j = evaluationToJson(e, *s.graph, simulated);
        j["cluster"] = s.cluster->name;
        j["algorithm"] = "tactics";
        nlohmann::json steps = nlohmann::json::array();
        for (const TacticStage& stage : run->stages)
            steps.push_back({{"tactic", stage.step.tactic},
                             {"step_time_s", stage.step.stepTime},
                             {"analytic_step_time_s", stage.step.analyticStepTime},
                             {"peak_memory_bytes", stage.step.peakMemory},
                             {"feasible", stage.step.feasible},
                             {"collectives_added", stage.step.collectivesAdded},
                             {"conflicts", stage.step.conflicts},
                             {"notes", stage.step.notes},
                             {"decided_axes", stage.step.decidedAxes}});
        j["tactic_steps"] = steps;
        j["plan"] = planDocument(run->plan, *s.graph, nullptr);
        out << j.dump(1) << "\n";
        return 0;
    }
    out << "tactics    " << options.tacticsPath << " on " << s.plan.mesh.toString() << "\n";
    int n = 0;
    for (const TacticStage& stage : run->stages) {
        const TacticStep& step = stage.step;
        out << "  " << ++n << ". " << step.tactic << ": step " << formatSeconds(step.stepTime) << " (simulated; "
            << formatSeconds(step.analyticStepTime) << " analytic), peak " << formatBytes(step.peakMemory)
            << (step.feasible ? "" : " DOES NOT FIT") << "\n";
        std::string added;
        for (const auto& [kind, count] : step.collectivesAdded)
            added += (added.empty() ? "" : ", ") + std::string(count > 0 ? "+" : "") + std::to_string(count) + " " + kind;
        if (!added.empty())
            out << "     collectives per step: " << added << "\n";
        for (const std::string& note : step.notes)
            out << "     note: " << note << "\n";
        for (const std::string& conflict : step.conflicts)
            out << "     CONFLICT: " << conflict << "\n";
    }
    out << "\n";
    printEvaluationTable(e, *s.graph, *s.cluster, run->plan.settings, out, simulated);
    return 0;
}

} // namespace shardscope::cli
