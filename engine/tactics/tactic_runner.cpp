#include "engine/tactics/tactic_runner.h"

#include "engine/search/search.h"
#include "engine/tactics/propagation.h"
#include "engine/util/error.h"
#include "engine/util/glob.h"
#include "engine/util/units.h"

#include <algorithm>
#include <map>

namespace shardscope {

namespace {

/// Collectives per step by kind name.
std::map<std::string, int> collectiveCounts(const Evaluation& e) {
    std::map<std::string, int> counts;
    for (const OpReport& r : e.perOp)
        for (const CollectiveCost& c : r.collectives)
            counts[std::string(collectiveName(c.kind))] += c.count;
    return counts;
}

bool matchesAny(const std::vector<std::string>& patterns, const std::string& name) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return globMatch(p, name); });
}

/// The dimension of input tensor `t` that its first consumer calls its batch factor (else 0).
int batchDim(const Graph& g, TensorId t) {
    const Tensor& tensor = g.tensor(t);
    for (OpId c : tensor.consumers) {
        const Op& op = g.op(c);
        const int b = op.rule.findFactor(op.hints.batch);
        for (std::size_t k = 0; k < op.inputs.size(); ++k)
            if (op.inputs[k] == t)
                for (std::size_t d = 0; d < op.rule.inputs[k].size(); ++d)
                    if (b >= 0 && op.rule.inputs[k][d].front() == b)
                        return int(d);
    }
    return 0;
}

/// Splits, over `axis`, every dimension of the parameters of ops whose hint `hintOf(op)` names a
/// factor that is the dimension's major factor.
template <typename Hint>
int splitHintedParameters(const Graph& g, Propagator& p, AxisId axis, Hint hintOf) {
    int split = 0;
    for (OpId o : g.topoOrder()) {
        const Op& op = g.op(o);
        const int f = op.rule.findFactor(hintOf(op));
        if (f < 0)
            continue;
        for (std::size_t k = 0; k < op.inputs.size(); ++k) {
            if (g.tensor(op.inputs[k]).role != TensorRole::Parameter)
                continue;
            for (std::size_t d = 0; d < op.rule.inputs[k].size(); ++d)
                if (op.rule.inputs[k][d].front() == f && p.splitTensor(op.inputs[k], int(d), axis))
                    ++split;
        }
    }
    return split;
}

class Runner {
public:
    explicit Runner(const TacticRequest& r) : r_(r), g_(*r.graph), plan_(g_, r.mesh, r.settings) {}

    std::shared_ptr<const TacticRun> run() {
        r_.mesh.verify(r_.cluster->deviceCount(), r_.cluster->name);
        auto out = std::make_shared<TacticRun>();
        // The plan before any tactic: everything replicated.
        const Plan replicated = plan_.complete(r_.tactics, "tactics");
        previous_ = collectiveCounts(*evaluate(*modelFor(replicated), replicated));
        for (std::size_t i = 0; i < r_.tactics.size(); ++i) {
            if (r_.stop.stop_requested()) {
                out->cancelled = true;
                break;
            }
            if (r_.progress)
                r_.progress(double(i) / double(r_.tactics.size()), r_.tactics[i].toString());
            TacticStep step;
            step.tactic = r_.tactics[i].toString();
            apply(int(i), step);
            out->stages.push_back(stage(step));
        }
        if (r_.progress)
            r_.progress(1.0, "done");
        out->tensors = plan_.tensors;
        if (out->stages.empty()) {
            out->plan = plan_.complete(r_.tactics, "tactics");
            out->model = modelFor(out->plan);
            out->evaluation = evaluate(*out->model, out->plan);
        } else {
            out->plan = out->stages.back().plan;
            out->model = out->stages.back().model;
            out->evaluation = out->stages.back().evaluation;
        }
        out->plan.tactics = r_.tactics;
        for (const TacticStage& s : out->stages)
            out->plan.tacticSteps.push_back(s.step);
        out->plan.tactics.resize(out->plan.tacticSteps.size());
        return out;
    }

private:
    std::shared_ptr<const CostModel> modelFor(const Plan& plan) const {
        return std::make_shared<const CostModel>(r_.graph, r_.cluster, plan.mesh, plan.settings);
    }

    AxisId axisOf(int i) const {
        const Tactic& t = r_.tactics[std::size_t(i)];
        const auto axis = r_.mesh.find(t.axis);
        if (!axis)
            throw InputError("tactic " + std::to_string(i + 1) + " " + t.toString() + ": the mesh " + r_.mesh.toString() +
                             " has no axis '" + t.axis + "'");
        return *axis;
    }

    void apply(int i, TacticStep& step) {
        const Tactic& t = r_.tactics[std::size_t(i)];
        Propagator p(g_, plan_, r_.tactics, i, step.conflicts, step.notes);
        const int before = plan_.decidedCount();
        switch (t.kind) {
        case TacticKind::Batch: {
            const AxisId axis = axisOf(i);
            int inputs = 0;
            for (std::size_t k = 0; k < g_.tensors().size(); ++k) {
                const Tensor& tensor = g_.tensors()[k];
                if (tensor.role != TensorRole::Input || (!t.inputs.empty() && !matchesAny(t.inputs, tensor.name)))
                    continue;
                p.splitTensor(TensorId(k), batchDim(g_, TensorId(k)), axis);
                ++inputs;
            }
            if (inputs == 0)
                step.notes.push_back("no model input matches " + t.toString());
            break;
        }
        case TacticKind::Megatron: {
            const int n = splitHintedParameters(g_, p, axisOf(i), [](const Op& op) { return op.hints.tensor; });
            step.notes.push_back(std::to_string(n) + " weight splits (column and row linears, heads, vocabulary)");
            break;
        }
        case TacticKind::Expert: {
            // The experts keep their split to themselves: dispatch and combine stay token-major, so the
            // tokens reach the experts (and return) by all-to-all.
            Propagator experts(g_, plan_, r_.tactics, i, step.conflicts, step.notes, [](const Op& op) {
                return op.kind != OpKind::Dispatch && op.kind != OpKind::Combine;
            });
            const int n = splitHintedParameters(g_, experts, axisOf(i), [](const Op& op) { return op.hints.expert; });
            step.notes.push_back(n ? std::to_string(n) + " expert weights split" : "the model has no experts");
            break;
        }
        case TacticKind::Sequence: {
            const AxisId axis = axisOf(i);
            for (OpId o : g_.topoOrder()) {
                const Op& op = g_.op(o);
                const int s = op.rule.findFactor(op.hints.sequence);
                if (s >= 0 && !plan_.at(o, axis).decided)
                    p.decideOp(o, axis, s);
            }
            break;
        }
        case TacticKind::Shard: {
            const AxisId axis = axisOf(i);
            int matched = 0;
            for (std::size_t k = 0; k < g_.tensors().size(); ++k)
                if (matchesAny(t.tensors, g_.tensors()[k].name)) {
                    p.splitTensor(TensorId(k), t.dim, axis);
                    ++matched;
                }
            if (matched == 0)
                step.conflicts.push_back(t.toString() + ": no tensor of the model matches");
            break;
        }
        case TacticKind::Zero: {
            const AxisId axis = axisOf(i);
            if (plan_.settings.zeroStage > 0 &&
                (plan_.settings.zeroStage != t.stage || plan_.settings.zeroAxes != axisBit(axis))) {
                step.conflicts.push_back("ZeRO: kept stage " + std::to_string(plan_.settings.zeroStage) + " over " +
                                         r_.mesh.setName(plan_.settings.zeroAxes) + " from an earlier tactic; not " +
                                         t.toString());
                break;
            }
            plan_.settings.zeroStage = t.stage;
            plan_.settings.zeroAxes = axisBit(axis);
            break;
        }
        case TacticKind::Auto:
            applyAuto(i, step);
            break;
        }
        step.notes.insert(step.notes.begin(),
                          std::to_string(plan_.decidedCount() - before) + " op axes decided by this tactic");
    }

    /// auto(axis): the search chooses what is still open on the axis (or on every axis), with every
    /// earlier decision pinned; on other axes, what is undecided stays replicated.
    void applyAuto(int i, TacticStep& step) {
        const Tactic& t = r_.tactics[std::size_t(i)];
        // The axis searched, or -1 for every axis.
        const int only = t.axis.empty() ? -1 : axisOf(i).value;
        SearchRequest s;
        s.graph = r_.graph;
        s.cluster = r_.cluster;
        s.mesh = r_.mesh;
        s.settings = plan_.settings;
        s.algorithm = t.algorithm;
        s.open.zeroStage = plan_.settings.zeroStage == 0; // no ZeRO tactic ran: the search may choose a stage
        s.threads = r_.threads;
        s.stop = r_.stop;
        s.pins.resize(g_.ops().size());
        bool anyPin = false;
        for (std::size_t o = 0; o < g_.ops().size(); ++o) {
            StrategyPin pin = plan_.pin(OpId(o));
            for (std::size_t a = 0; a < r_.mesh.rank(); ++a)
                if (only >= 0 && int(a) != only && !pin.factorOfAxis[a])
                    pin.factorOfAxis[a] = -1;
            if (std::any_of(pin.factorOfAxis.begin(), pin.factorOfAxis.end(), [](const auto& f) { return f.has_value(); })) {
                s.pins[o] = pin;
                anyPin = true;
            }
        }
        if (!anyPin)
            s.pins.clear();
        const auto result = search(s);
        Provenance why;
        why.source = Provenance::Source::Tactic;
        why.tactic = i;
        for (std::size_t o = 0; o < g_.ops().size(); ++o)
            for (std::size_t a = 0; a < r_.mesh.rank(); ++a)
                if (!plan_.at(OpId(o), AxisId(a)).decided && (only < 0 || int(a) == only))
                    plan_.decide(OpId(o), AxisId(a), result->plan.ops[o].strategy.factorOfAxis[a], why);
        if (result->plan.settings.zeroStage != plan_.settings.zeroStage) {
            step.notes.push_back("the search chose ZeRO stage " + std::to_string(result->plan.settings.zeroStage) +
                                 " over the data axis");
            plan_.settings = result->plan.settings;
        }
        step.notes.push_back("searched with " + result->report.chosenBy() + " in " +
                             formatSeconds(result->report.searchSeconds));
    }

    TacticStage stage(TacticStep step) {
        TacticStage s;
        s.plan = plan_.complete(r_.tactics, "tactics");
        s.model = modelFor(s.plan);
        s.evaluation = evaluate(*s.model, s.plan);
        const auto sim = simulate(*s.model, s.plan, r_.simulation);
        step.stepTime = sim->stepTime;
        step.analyticStepTime = s.evaluation->stepTime;
        step.peakMemory = s.evaluation->peakMemory;
        step.feasible = s.evaluation->feasible;
        const auto counts = collectiveCounts(*s.evaluation);
        for (const auto& [kind, n] : counts)
            if (n != previous_[kind])
                step.collectivesAdded[kind] = n - previous_[kind];
        for (const auto& [kind, n] : previous_)
            if (!counts.count(kind) && n != 0)
                step.collectivesAdded[kind] = -n;
        previous_ = counts;
        step.decidedAxes = plan_.decidedCount();
        for (std::size_t o = 0; o < g_.ops().size(); ++o)
            s.decidedAxes.push_back(plan_.decidedAxes(OpId(o)));
        s.step = std::move(step);
        return s;
    }

    const TacticRequest& r_;
    const Graph& g_;
    PartialPlan plan_;
    std::map<std::string, int> previous_;
};

} // namespace

std::shared_ptr<const TacticRun> runTactics(const TacticRequest& request) {
    if (!request.graph || !request.cluster)
        throw InputError("tactics: no model or cluster");
    return Runner(request).run();
}

} // namespace shardscope
