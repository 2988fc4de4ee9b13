#include "engine/plans/baselines.h"

#include "engine/util/error.h"

#include <sstream>

namespace shardscope {

namespace {

enum class Pattern { Data, Megatron, MegatronSequence };

struct Spec {
    Pattern pattern = Pattern::Data;
    int zeroStage = 0;
    bool expertsOverModel = false; ///< etp1: the routed experts split over the model axis, not tensor-parallel
};

Spec parseSpec(const std::string& spec) {
    Spec s;
    bool havePattern = false, haveZero = false;
    if (!spec.empty() && (spec.front() == '+' || spec.back() == '+' || spec.find("++") != std::string::npos))
        throw InputError("--strategy " + spec.substr(0, 80) + ": a '+' joins two names; one is missing");
    std::stringstream in(spec);
    std::string part;
    const std::string known = "dp, megatron, megatron-sp, zero1, zero2, zero3, fsdp, etp1, or a combination such as "
                              "megatron+zero1";
    while (std::getline(in, part, '+')) {
        if (part == "dp" || part == "megatron" || part == "megatron-sp") {
            if (havePattern)
                throw InputError("--strategy " + spec + ": more than one of dp, megatron, megatron-sp");
            havePattern = true;
            s.pattern = part == "dp" ? Pattern::Data : part == "megatron" ? Pattern::Megatron : Pattern::MegatronSequence;
        } else if (part == "zero1" || part == "zero2" || part == "zero3" || part == "fsdp") {
            if (haveZero)
                throw InputError("--strategy " + spec + ": more than one ZeRO stage");
            haveZero = true;
            s.zeroStage = part == "fsdp" ? 3 : part[4] - '0';
        } else if (part == "etp1") {
            s.expertsOverModel = true;
        } else {
            throw InputError("--strategy " + spec + ": unknown baseline '" + part + "' (known: " + known + ")");
        }
    }
    if (!havePattern && !haveZero)
        throw InputError("--strategy: empty (known: " + known + ")");
    if (s.expertsOverModel && s.pattern == Pattern::Data)
        throw InputError("--strategy " + spec + ": etp1 folds the experts over the tensor-parallel (model) axis; "
                         "join it to megatron or megatron-sp");
    return s;
}

/// True for the ops of a routed-expert layer that Megatron's MoE parallel folding lays out over the
/// expert-parallel group instead of tensor parallelism: in an ".moe" block (not its shared experts),
/// the expert computations and the token ops without a tensor-parallel factor (router, gate, dispatch,
/// combine, the token reshapes).
bool routedExpertOp(const Op& op) {
    const std::string suffix = ".moe";
    const bool moeBlock = op.block.size() >= suffix.size() &&
                          op.block.compare(op.block.size() - suffix.size(), suffix.size(), suffix) == 0;
    return moeBlock && (!op.hints.expert.empty() || op.hints.tensor.empty());
}

/// Splits factor `name` of `op` over `axis` in `s` if the result stays valid.
void trySplit(const Op& op, const Mesh& mesh, OpStrategy& s, std::optional<AxisId> axis, const std::string& name) {
    if (!axis || name.empty())
        return;
    const int f = op.rule.findFactor(name);
    if (f < 0 || s.factorOfAxis[axis->index()] >= 0)
        return;
    s.factorOfAxis[axis->index()] = f;
    if (!verifyStrategy(op, mesh, s).empty())
        s.factorOfAxis[axis->index()] = -1;
}

std::string batchFactor(const Op& op) {
    if (!op.hints.batch.empty())
        return op.hints.batch;
    const auto& out = op.rule.outputs.front();
    if (out.empty())
        return {};
    return op.rule.factors[static_cast<std::size_t>(out.front().front())].name;
}

} // namespace

const std::vector<BaselineEntry>& baselineRegistry() {
    static const std::vector<BaselineEntry> registry{
        {"dp", "data parallel: every op split on its batch over the data axis, parameters replicated"},
        {"zero1", "data parallel with optimizer state sharded over the data axis (ZeRO-1)"},
        {"zero2", "data parallel with optimizer state and gradients sharded (ZeRO-2)"},
        {"zero3", "data parallel with parameters, gradients and optimizer state sharded (ZeRO-3)"},
        {"fsdp", "PyTorch FSDP full sharding: the same plan as zero3"},
        {"megatron", "Megatron-LM tensor parallel over the model axis, data parallel over the data axis"},
        {"megatron+zero1", "Megatron-LM tensor parallel with the distributed optimizer"},
        {"megatron+zero3", "Megatron-LM tensor parallel with fully sharded data parallel"},
        {"megatron-sp", "Megatron-LM tensor parallel with sequence parallelism in norms and dropout"},
        {"megatron-sp+zero1", "tensor + sequence parallel with the distributed optimizer"},
        {"megatron-sp+zero3", "tensor + sequence parallel with fully sharded data parallel"},
        {"megatron-sp+zero1+etp1", "tensor + sequence parallel, distributed optimizer, routed experts folded over "
                                   "the model axis (expert tensor parallel size 1)"},
    };
    return registry;
}

const std::vector<std::string>& baselinePatterns() {
    static const std::vector<std::string> patterns{"dp", "megatron", "megatron-sp", "megatron-sp+etp1"};
    return patterns;
}

std::string baselineSpec(const std::string& pattern, int zeroStage) {
    if (zeroStage <= 0)
        return pattern;
    const std::string zero = "zero" + std::to_string(zeroStage);
    return pattern == "dp" ? zero : pattern + "+" + zero;
}

bool isBaselineSpec(const std::string& spec) {
    return spec.find('/') == std::string::npos && spec.find(".json") == std::string::npos;
}

Plan baselinePlan(const Graph& graph, const Mesh& mesh, const std::string& spec, StepSettings settings,
                  const std::vector<std::size_t>* sameAs, const PipelineLayout* layout) {
    const Spec s = parseSpec(spec);
    std::optional<AxisId> data = mesh.axisOf(AxisRole::Data);
    std::optional<AxisId> model = mesh.axisOf(AxisRole::Model);
    // Context parallelism (Megatron-LM's --context-parallel-size): an axis named "seq" splits every
    // op's sequence factor, the keys and values gathered where attention reads them.
    const std::optional<AxisId> seq = mesh.axisOf(AxisRole::Sequence);
    // Expert parallelism inside data parallelism (Megatron's --expert-model-parallel-size): an axis
    // named "expert" splits the experts of the expert computations and every other op's batch, so
    // that dispatch and combine become all-to-alls over it.
    const std::optional<AxisId> expert = mesh.axisOf(AxisRole::Expert);
    if (!data && !model) {
        // The unnamed axes, major to minor, without the pipe axis (it holds stages).
        std::vector<AxisId> free;
        for (std::size_t a = 0; a < mesh.rank(); ++a)
            if (mesh.stageAxes() & (AxisSet(1) << a))
                free.push_back(AxisId(a));
        if (free.size() >= 2) {
            data = free.front();
            model = free.back();
        } else if (free.size() == 1 && s.pattern == Pattern::Data) {
            data = free.front();
        } else if (free.size() == 1) {
            model = free.front();
        }
    }
    if (s.pattern != Pattern::Data && !model)
        throw InputError("--strategy " + spec + ": the mesh " + mesh.toString() + " has no axis named 'model'");
    if (s.zeroStage > 0 && !data)
        throw InputError("--strategy " + spec + ": the mesh " + mesh.toString() + " has no axis named 'data'");

    Plan plan = Plan::replicated(graph.ops().size(), mesh);
    plan.name = spec;
    auto twin = [&](std::size_t o) { return sameAs ? (*sameAs)[o] : o; };
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        if (twin(o) != o)
            continue;
        const Op& op = graph.ops()[o];
        OpStrategy& st = plan.ops[o].strategy;
        const bool expertComputation = !op.hints.expert.empty() && op.kind != OpKind::Dispatch;
        // MoE parallel folding (Megatron's --expert-tensor-parallel-size 1): the model axis joins the
        // expert axis in the routed-expert layer, splitting its experts and its tokens after them.
        const bool folded = s.expertsOverModel && routedExpertOp(op);
        const bool sequenceParallel = s.pattern == Pattern::MegatronSequence && op.hints.tensor.empty();
        if (s.pattern != Pattern::Data && !folded) {
            trySplit(op, mesh, st, model, op.hints.tensor);
            if (sequenceParallel)
                trySplit(op, mesh, st, model, op.hints.sequence);
        }
        trySplit(op, mesh, st, data, batchFactor(op));
        trySplit(op, mesh, st, expert, expertComputation ? op.hints.expert : batchFactor(op));
        if (folded) {
            trySplit(op, mesh, st, model, expertComputation ? op.hints.expert : batchFactor(op));
            if (sequenceParallel)
                trySplit(op, mesh, st, model, op.hints.sequence);
        }
        if (seq && op.rule.findFactor("s") >= 0 && op.rule.splittable(op.rule.findFactor("s")))
            trySplit(op, mesh, st, seq, "s");
    }
    for (std::size_t o = 0; o < graph.ops().size(); ++o)
        if (twin(o) != o)
            plan.ops[o].strategy = plan.ops[twin(o)].strategy;
    plan.origin = "the " + spec + " baseline";
    settings.zeroStage = s.zeroStage;
    settings.zeroAxes = s.zeroStage > 0 ? mesh.dataParallelAxes() | axisBit(*data) : 0;
    plan.settings = settings;
    if (mesh.pipelineStages() > 1)
        plan.pipeline = layout ? *layout : makePipelineLayout(graph, mesh.pipelineStages(), settings.virtualStages);
    return plan;
}

} // namespace shardscope
