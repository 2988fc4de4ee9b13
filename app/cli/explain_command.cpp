#include "commands.h"

#include "engine/cost/cost_model.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runExplain(const CliOptions& options, std::ostream& out) {
    const Scenario s = loadScenario(options.scenario);
    const auto found = s.graph->findOp(options.explainOp);
    if (!found)
        throw InputError("--op " + options.explainOp + ": the model " + s.graph->name + " has no such op");
    const OpId o = *found;
    const Op& op = s.graph->op(o);
    const Mesh& mesh = s.plan.mesh;
    const OpStrategy& strategy = s.plan.ops[o.index()].strategy;
    const CostModel model(s.graph, s.cluster, mesh, s.plan.settings);
    const auto e = evaluate(model, s.plan);
    const OpReport& report = e->perOp[o.index()];
    auto whyOf = [&](std::size_t a) {
        const std::string why = s.plan.whyOf(*s.graph, o, a);
        return why.empty() ? std::string("the plan does not record why") : why;
    };
    if (options.json) {
        nlohmann::json axes = nlohmann::json::array();
        for (std::size_t a = 0; a < mesh.rank(); ++a) {
            const int f = strategy.factorOfAxis[a];
            axes.push_back({{"axis", mesh.axes[a].name},
                            {"factor", f >= 0 ? op.rule.factors[std::size_t(f)].name : std::string()},
                            {"why", whyOf(a)}});
        }
        nlohmann::json tactics = nlohmann::json::array();
        for (const Tactic& t : s.plan.tactics)
            tactics.push_back(t.toString());
        out << nlohmann::json{{"op", op.name},
                              {"rule", op.rule.toString()},
                              {"strategy", report.strategy},
                              {"locked", bool(s.plan.ops[o.index()].locked)},
                              {"axes", axes},
                              {"tactics", tactics},
                              {"comm_s", report.commTime},
                              {"compute_s", report.computeTime}}
                   .dump(1)
            << "\n";
        return 0;
    }
    out << "op         " << op.name << " (" << opKindName(op.kind) << ") in " << (op.block.empty() ? "-" : op.block) << "\n";
    out << "rule       " << op.rule.toString() << "\n";
    out << "strategy   " << report.strategy << (s.plan.ops[o.index()].locked ? " (locked)" : "") << " on " << mesh.toString()
        << "\n";
    for (std::size_t a = 0; a < mesh.rank(); ++a)
        out << "  " << mesh.axes[a].name << ": " << whyOf(a) << "\n";
    for (std::size_t k = 0; k < op.inputs.size(); ++k)
        out << "  in  " << s.graph->tensor(op.inputs[k]).name << " " << inputSharding(op, k, strategy).toString(mesh) << "\n";
    for (std::size_t k = 0; k < op.outputs.size(); ++k)
        out << "  out " << s.graph->tensor(op.outputs[k]).name << " " << outputSharding(op, k, strategy).toString(mesh)
            << "\n";
    out << "cost       compute " << formatSeconds(report.computeTime) << ", communication " << formatSeconds(report.commTime)
        << "\n";
    for (const CollectiveCost& c : report.collectives)
        out << "  " << collectiveName(c.kind) << " (" << purposeName(c.purpose) << ", " << phaseName(c.phase) << ") over "
            << mesh.setName(c.axes) << ": " << c.count << " x " << formatBytes(c.bytes) << " = "
            << formatSeconds(c.totalTime()) << "\n";
    if (!s.plan.tactics.empty()) {
        out << "built by   ";
        for (std::size_t i = 0; i < s.plan.tactics.size(); ++i)
            out << (i ? ", " : "") << i + 1 << ". " << s.plan.tactics[i].toString();
        out << "\n";
    }
    return 0;
}

} // namespace shardscope::cli
