#include "commands.h"

#include "engine/builders/builders.h"
#include "engine/io/evaluation_json.h"
#include "engine/io/json_fields.h"
#include "engine/io/plan_file.h"
#include "engine/search/stage_cuts.h"
#include "engine/search/search.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

namespace shardscope::cli {

int runSearch(const CliOptions& options, std::ostream& out) {
    // The scenario gives the model and cluster (and checks a fixed mesh against the cluster).
    Scenario s = loadScenario(options.scenario);
    SearchRequest request;
    request.graph = s.graph;
    request.cluster = s.cluster;
    request.settings = s.plan.settings;
    request.open = options.open;
    request.family = graphFamilyOf(s.source);
    request.algorithm = parseAlgorithm(options.algorithm);
    request.threads = options.threads;
    if (!options.meshAuto)
        request.mesh = s.plan.mesh;
    if (!options.lockPlan.empty()) {
        const Plan locks = parsePlanJson(readTextFile(options.lockPlan), options.lockPlan, *s.graph);
        if (request.mesh && !(*request.mesh == locks.mesh))
            throw InputError("--lock " + options.lockPlan + ": its mesh " + locks.mesh.toString() + " is not --mesh " +
                             request.mesh->toString());
        request.mesh = locks.mesh;
        request.locks.resize(s.graph->ops().size());
        for (std::size_t v = 0; v < locks.ops.size(); ++v)
            if (locks.ops[v].locked)
                request.locks[v] = locks.ops[v].strategy;
        // A locked cut stays; else each locked op keeps its stage.
        if (locks.pipeline.locked)
            request.stageCut = locks.pipeline.chunkBlocks;
        else if (const auto blocks = findLayers(*s.graph))
            request.blockStages = lockedBlockStages(locks, *blocks);
    }
    if (!options.scenario.stages.empty()) {
        if (!request.stageCut.empty() && request.stageCut != s.plan.pipeline.chunkBlocks)
            throw InputError("--stages contradicts the locked cut of --lock " + options.lockPlan);
        request.stageCut = s.plan.pipeline.chunkBlocks;
    }
    const auto result = search(request);
    const Evaluation& e = *result->evaluation;
    const SearchReport& rep = result->report;
    const Graph& graph = *result->graph;
    if (!options.planOut.empty())
        savePlan(options.planOut, result->plan, graph, &e);
    if (options.json) {
        nlohmann::json j = evaluationToJson(e, graph, result->stepTime());
        j["cluster"] = s.cluster->name;
        j["algorithm"] = rep.chosenBy();
        j["settings_chosen"] = {{"zero_stage", result->plan.settings.zeroStage},
                                {"recompute", std::string(recomputeName(result->plan.settings.recompute))},
                                {"microbatches", result->plan.settings.microbatches},
                                {"schedule", std::string(scheduleName(result->plan.settings.schedule))},
                                {"virtual_stages", result->plan.settings.virtualStages}};
        j["combinations"] = {{"solved", rep.combinationsSolved}, {"pruned", rep.combinationsPruned},
                             {"plans_bounded", rep.plansBounded}};
        j["fit_advice"] = rep.fitAdvice;
        j["optimality_gap"] = rep.optimalityGap ? nlohmann::json(*rep.optimalityGap) : nlohmann::json(nullptr);
        j["search_time_s"] = rep.searchSeconds;
        j["simulation_time_s"] = rep.simulationSeconds;
        j["finalists_simulated"] = rep.finalistsSimulated;
        j["evaluation_time_s"] = rep.evaluationSeconds;
        j["states_explored"] = rep.statesExplored;
        nlohmann::json meshes = nlohmann::json::array();
        for (const MeshTried& m : rep.meshesTried)
            meshes.push_back({{"mesh", m.mesh.toString()}, {"schedule", m.schedule},
                              {"analytic_step_time_s", m.stepTime}, {"feasible", m.feasible},
                              {"lower_bound", m.lowerBound}});
        j["meshes_tried"] = meshes;
        j["folded_blocks"] = {{"blocks", rep.foldedBlocks}, {"ops_per_block", rep.opsPerBlock}};
        j["notes"] = rep.notes;
        j["cancelled"] = rep.cancelled;
        j["plan"] = planDocument(result->plan, graph, nullptr);
        out << j.dump(1) << "\n";
        return 0;
    }
    out << "search     " << rep.chosenBy() << " in " << formatSeconds(rep.searchSeconds) << ", "
        << formatCount(rep.statesExplored) << " states, " << rep.combinationsSolved << " settings combinations solved, "
        << rep.combinationsPruned << " pruned, " << rep.plansBounded << " plans bounded, "
        << rep.finalistsSimulated << " finalists simulated\n";
    out << "  analytic step of each mesh's best plan (the search's estimate):\n";
    for (const MeshTried& m : rep.meshesTried)
        out << "  mesh " << m.mesh.toString() << (m.schedule.empty() ? "" : " " + m.schedule) << ": "
            << (m.lowerBound ? "at least " : "") << formatSeconds(m.stepTime)
            << (m.feasible ? "" : " (does not fit)") << (m.lowerBound ? " (lower bound: cannot win)" : "")
            << "\n";
    if (rep.foldedBlocks > 0)
        out << "  folded " << rep.foldedBlocks << " repeated blocks of " << rep.opsPerBlock << " ops\n";
    for (const std::string& n : rep.notes)
        out << "  note: " << n << "\n";
    for (const std::string& a : rep.fitAdvice)
        out << "  would fit: " << a << "\n";
    out << "\n";
    printEvaluationTable(e, graph, *s.cluster, result->plan.settings, out, result->stepTime());
    return 0;
}

} // namespace shardscope::cli
