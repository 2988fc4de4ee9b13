#include "engine/io/plan_file.h"

#include "engine/io/json_fields.h"
#include "engine/io/tactic_file.h"
#include "engine/util/error.h"

#include <cstdlib>

namespace shardscope {

using nlohmann::json;

namespace {

TacticStep parseTacticStep(const json& obj, const JsonFields& in, const std::string& path, const Tactic& tactic) {
    in.checkKnown(obj, path, {"step_time_s", "analytic_step_time_s", "peak_memory_bytes", "feasible", "collectives_added",
                              "conflicts", "notes", "decided_axes"});
    TacticStep s;
    s.tactic = tactic.toString();
    s.stepTime = in.number(obj, path, "step_time_s");
    s.analyticStepTime = obj.contains("analytic_step_time_s") ? in.number(obj, path, "analytic_step_time_s") : s.stepTime;
    s.peakMemory = in.number(obj, path, "peak_memory_bytes");
    s.feasible = !obj.contains("feasible") || in.boolean(obj, path, "feasible");
    if (obj.contains("collectives_added"))
        for (const auto& [kind, count] : in.object(obj, path, "collectives_added").items()) {
            // Negative where a tactic removed collectives the step before it had.
            if (!count.is_number_integer() || std::llabs(count.get<long long>()) > 1000000000)
                in.fail(path + ".collectives_added." + kind.substr(0, 40), "must be a whole number of collectives");
            s.collectivesAdded[kind] = count.get<int>();
        }
    for (const char* key : {"conflicts", "notes"})
        if (obj.contains(key))
            for (const json& v : in.array(obj, path, key)) {
                if (!v.is_string())
                    in.fail(path + "." + key, "must list texts");
                (std::string(key) == "conflicts" ? s.conflicts : s.notes).push_back(v.get<std::string>());
            }
    if (obj.contains("decided_axes"))
        s.decidedAxes = static_cast<int>(in.integer(obj, path, "decided_axes"));
    return s;
}

} // namespace

json tacticStepToJson(const TacticStep& s) {
    return json{{"step_time_s", s.stepTime},
                {"analytic_step_time_s", s.analyticStepTime},
                {"peak_memory_bytes", s.peakMemory},
                {"feasible", s.feasible},
                {"collectives_added", s.collectivesAdded},
                {"conflicts", s.conflicts},
                {"notes", s.notes},
                {"decided_axes", s.decidedAxes}};
}

/// The reading itself; parsePlanDocument turns stray JSON type errors into input errors.
static Plan parsePlanDocumentUnguarded(const json& doc, const std::string& source, const Graph& graph) {
    const JsonFields in(source);
    in.checkHeader(doc, "shardscope-plan");
    in.checkKnown(doc, "", {"format", "version", "name", "model", "mesh", "settings", "strategies", "tactics", "cost", "why",
                            "pipeline"});
    Plan plan;
    plan.name = doc.contains("name") ? in.string(doc, "", "name") : source;
    if (doc.contains("why"))
        plan.origin = in.string(doc, "", "why");
    try {
        plan.mesh = Mesh::parse(in.string(doc, "", "mesh"));
    } catch (const InputError& e) {
        in.fail("mesh", e.what());
    }
    if (doc.contains("settings")) {
        const json& s = in.object(doc, "", "settings");
        in.checkKnown(s, "settings", {"microbatches", "recompute", "attention", "precision", "loss", "overlap",
                                          "tp_overlap", "bucket_mb", "optimizer", "zero_stage", "zero_axes", "schedule", "virtual_stages"});
        if (s.contains("microbatches")) {
            const long long m = in.integer(s, "settings", "microbatches");
            if (m < 1 || m > 1000000)
                in.fail("settings.microbatches", "must be at least 1");
            plan.settings.microbatches = static_cast<int>(m);
        }
        if (s.contains("recompute")) {
            const auto r = parseRecompute(in.string(s, "settings", "recompute"));
            if (!r)
                in.fail("settings.recompute", "must be none, selective or full");
            plan.settings.recompute = *r;
        }
        if (s.contains("attention")) {
            const auto a = parseAttention(in.string(s, "settings", "attention"));
            if (!a)
                in.fail("settings.attention", "must be fused or unfused");
            plan.settings.attention = *a;
        }
        if (s.contains("precision")) {
            const auto p = parsePrecision(in.string(s, "settings", "precision"));
            if (!p)
                in.fail("settings.precision", "must be bf16, fp8 or mxfp8");
            plan.settings.precision = *p;
        }
        if (s.contains("loss")) {
            const auto l = parseLoss(in.string(s, "settings", "loss"));
            if (!l)
                in.fail("settings.loss", "must be unfused or fused");
            plan.settings.loss = *l;
        }
        if (s.contains("overlap"))
            plan.settings.overlap = in.boolean(s, "settings", "overlap");
        if (s.contains("tp_overlap")) {
            const auto t = parseTpOverlap(in.string(s, "settings", "tp_overlap"));
            if (!t)
                in.fail("settings.tp_overlap", "must be off, backward or full");
            plan.settings.tpOverlap = *t;
        }
        if (s.contains("bucket_mb"))
            plan.settings.bucketBytes = in.numberIn(s, "settings", "bucket_mb", kMinBucketMb, kMaxBucketMb) * 1e6;
        if (s.contains("optimizer")) {
            const auto o = parseOptimizer(in.string(s, "settings", "optimizer"));
            if (!o)
                in.fail("settings.optimizer", "must be adam or sgd");
            plan.settings.optimizer = *o;
        }
        if (s.contains("zero_stage")) {
            const long long z = in.integer(s, "settings", "zero_stage");
            if (z < 0 || z > 3)
                in.fail("settings.zero_stage", "must be 0, 1, 2 or 3");
            plan.settings.zeroStage = static_cast<int>(z);
        }
        if (s.contains("schedule")) {
            const auto sched = parseSchedule(in.string(s, "settings", "schedule"));
            if (!sched)
                in.fail("settings.schedule", "must be 1f1b, gpipe or interleaved");
            plan.settings.schedule = *sched;
        }
        if (s.contains("virtual_stages")) {
            const long long v = in.integer(s, "settings", "virtual_stages");
            if (v < 1 || v > 1024)
                in.fail("settings.virtual_stages", "must be between 1 and 1024");
            plan.settings.virtualStages = static_cast<int>(v);
        }
        if (s.contains("zero_axes"))
            for (const json& a : in.array(s, "settings", "zero_axes")) {
                const auto axis = a.is_string() ? plan.mesh.find(a.get<std::string>()) : std::nullopt;
                if (!axis)
                    in.fail("settings.zero_axes", "names no axis of mesh " + plan.mesh.toString());
                plan.settings.zeroAxes |= axisBit(*axis);
            }
    }
    plan.ops.assign(graph.ops().size(), OpChoice{OpStrategy::replicated(plan.mesh.rank()), false, {}});
    std::vector<bool> seen(graph.ops().size(), false);
    const json& list = in.array(doc, "", "strategies");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = "strategies[" + std::to_string(i) + "]";
        const json& e = list[i];
        if (!e.is_object())
            in.fail(path, "must be an object");
        in.checkKnown(e, path, {"op", "axes", "locked", "why"});
        const std::string name = in.string(e, path, "op");
        const auto op = graph.findOp(name);
        if (!op)
            in.fail(path + ".op", "the model has no op '" + name + "'");
        OpStrategy& st = plan.ops[op->index()].strategy;
        seen[op->index()] = true;
        const json& axes = in.object(e, path, "axes");
        for (auto it = axes.begin(); it != axes.end(); ++it) {
            const auto axis = plan.mesh.find(it.key());
            if (!axis)
                in.fail(path + ".axes." + it.key(), "not an axis of mesh " + plan.mesh.toString());
            if (!it.value().is_string())
                in.fail(path + ".axes." + it.key(), "must name a factor");
            const int f = graph.op(*op).rule.findFactor(it.value().get<std::string>());
            if (f < 0)
                in.fail(path + ".axes." + it.key(), "op '" + name + "' has no factor '" + it.value().get<std::string>() + "'");
            st.factorOfAxis[axis->index()] = f;
        }
        if (e.contains("why")) {
            const json& why = in.object(e, path, "why");
            std::vector<Provenance>& reasons = plan.ops[op->index()].why;
            reasons.assign(plan.mesh.rank(), Provenance{});
            for (auto it = why.begin(); it != why.end(); ++it) {
                const auto axis = plan.mesh.find(it.key());
                if (!axis || !it.value().is_string())
                    in.fail(path + ".why." + it.key(), "must map an axis of mesh " + plan.mesh.toString() + " to a text");
                if (!it.value().get<std::string>().empty())
                    reasons[axis->index()] = Provenance{Provenance::Source::Note, -1, {}, {}, it.value().get<std::string>()};
            }
        }
        if (e.contains("locked")) {
            if (!e.at("locked").is_boolean())
                in.fail(path + ".locked", "must be true or false");
            plan.ops[op->index()].locked = e.at("locked").get<bool>();
        }
    }
    for (std::size_t o = 0; o < seen.size(); ++o)
        if (!seen[o])
            in.fail("strategies", "no strategy for op '" + graph.ops()[o].name + "'");
    if (doc.contains("tactics")) {
        const json& tactics = in.array(doc, "", "tactics");
        for (std::size_t i = 0; i < tactics.size(); ++i) {
            const std::string path = "tactics[" + std::to_string(i) + "]";
            plan.tactics.push_back(parseTactic(tactics[i], in, path, {"step"}));
            if (tactics[i].contains("step"))
                plan.tacticSteps.push_back(parseTacticStep(in.object(tactics[i], path, "step"), in, path + ".step",
                                                           plan.tactics.back()));
        }
        if (!plan.tacticSteps.empty() && plan.tacticSteps.size() != plan.tactics.size())
            in.fail("tactics", "either every tactic has its step figures or none has");
    }
    if (plan.mesh.pipelineStages() > 1 || doc.contains("pipeline")) {
        std::vector<int> chunkBlocks;
        if (doc.contains("pipeline")) {
            const json& p = in.object(doc, "", "pipeline");
            in.checkKnown(p, "pipeline", {"chunk_blocks", "locked"});
            for (const json& n : in.array(p, "pipeline", "chunk_blocks")) {
                if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > 1000000)
                    in.fail("pipeline.chunk_blocks", "must be positive block counts");
                chunkBlocks.push_back(n.get<int>());
            }
        }
        try {
            plan.pipeline = makePipelineLayout(graph, plan.mesh.pipelineStages(), plan.settings.virtualStages, chunkBlocks);
        } catch (const InputError& e) {
            in.fail("pipeline", e.what());
        }
        if (doc.contains("pipeline") && doc["pipeline"].contains("locked"))
            plan.pipeline.locked = in.boolean(doc["pipeline"], "pipeline", "locked");
    }
    if (auto err = plan.verify(graph); !err.empty())
        in.fail("strategies", err);
    return plan;
}

Plan parsePlanDocument(const nlohmann::json& doc, const std::string& source, const Graph& graph) {
    return guardJson(source, [&] { return parsePlanDocumentUnguarded(doc, source, graph); });
}

Plan parsePlanJson(const std::string& text, const std::string& source, const Graph& graph) {
    return parsePlanDocument(JsonFields(source).parse(text), source, graph);
}

json planDocument(const Plan& plan, const Graph& graph, const Evaluation* evaluation) {
    json settings{{"microbatches", plan.settings.microbatches},
                  {"recompute", std::string(recomputeName(plan.settings.recompute))},
                  {"attention", std::string(attentionName(plan.settings.attention))},
                  {"precision", std::string(precisionName(plan.settings.precision))},
                  {"loss", std::string(lossName(plan.settings.loss))},
                  {"overlap", plan.settings.overlap},
                  {"tp_overlap", std::string(tpOverlapName(plan.settings.tpOverlap))},
                  {"bucket_mb", plan.settings.bucketBytes / 1e6},
                  {"optimizer", std::string(optimizerName(plan.settings.optimizer))},
                  {"zero_stage", plan.settings.zeroStage},
                  {"schedule", std::string(scheduleName(plan.settings.schedule))},
                  {"virtual_stages", plan.settings.virtualStages}};
    json zeroAxes = json::array();
    for (std::size_t a = 0; a < plan.mesh.rank(); ++a)
        if (plan.settings.zeroAxes & (AxisSet(1) << a))
            zeroAxes.push_back(plan.mesh.axes[a].name);
    settings["zero_axes"] = zeroAxes;
    json tactics = json::array();
    for (std::size_t i = 0; i < plan.tactics.size(); ++i) {
        json t = tacticToJson(plan.tactics[i]);
        if (i < plan.tacticSteps.size())
            t["step"] = tacticStepToJson(plan.tacticSteps[i]);
        tactics.push_back(t);
    }
    json strategies = json::array();
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        const Op& op = graph.ops()[o];
        json axes = json::object();
        for (std::size_t a = 0; a < plan.mesh.rank(); ++a) {
            const int f = plan.ops[o].strategy.factorOfAxis[a];
            if (f >= 0)
                axes[plan.mesh.axes[a].name] = op.rule.factors[static_cast<std::size_t>(f)].name;
        }
        json entry{{"op", op.name}, {"axes", axes}};
        if (plan.ops[o].locked)
            entry["locked"] = true;
        json why = json::object();
        for (std::size_t a = 0; a < plan.mesh.rank(); ++a)
            if (plan.ops[o].whyOn(a).source != Provenance::Source::Origin)
                why[plan.mesh.axes[a].name] = plan.whyOf(graph, OpId(o), a);
        if (!why.empty())
            entry["why"] = why;
        strategies.push_back(entry);
    }
    json doc{{"format", "shardscope-plan"}, {"version", 1},        {"name", plan.name},
             {"model", graph.name},         {"mesh", plan.mesh.toString()}, {"settings", settings},
             {"strategies", strategies},    {"tactics", tactics}};
    if (plan.pipeline.active())
        doc["pipeline"] = {{"chunk_blocks", plan.pipeline.chunkBlocks}, {"locked", plan.pipeline.locked}};
    if (!plan.origin.empty())
        doc["why"] = plan.origin;
    if (evaluation)
        doc["cost"] = {{"analytic_step_time_s", evaluation->stepTime},
                       {"peak_memory_bytes", evaluation->peakMemory},
                       {"feasible", evaluation->feasible}};
    return doc;
}

std::string planToJson(const Plan& plan, const Graph& graph, const Evaluation* evaluation) {
    return planDocument(plan, graph, evaluation).dump(1) + "\n";
}

void savePlan(const std::string& path, const Plan& plan, const Graph& graph, const Evaluation* evaluation) {
    writeFileAtomically(path, planToJson(plan, graph, evaluation));
}

} // namespace shardscope
