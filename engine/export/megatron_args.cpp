#include "engine/export/megatron_args.h"

#include "engine/export/layout_match.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/util/error.h"

#include <algorithm>
#include <optional>
#include <set>

namespace shardscope {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw InputError("megatron export: " + why); }

/// The Megatron layout `plan` has: its pattern ("megatron-sp", "megatron" or "dp", "+etp1" when the
/// routed experts fold over the tensor-parallel ranks) and whether the experts are split over the data
/// axis; else refuses naming the ops that differ from the closest. With an expert axis the pattern's
/// baseline splits the experts over it already.
std::pair<std::string, bool> patternOf(const Graph& graph, const Plan& plan, bool tensorParallel) {
    const std::vector<std::string> patterns =
        tensorParallel ? std::vector<std::string>{"megatron-sp", "megatron", "megatron-sp+etp1", "megatron+etp1"}
                       : std::vector<std::string>{"dp"};
    const bool experts =
        graph.hasRoutedExperts() && plan.mesh.degreeOf(AxisRole::Data) > 1 && !plan.mesh.axisOf(AxisRole::Expert);
    std::optional<LayoutDifference> closest;
    for (const std::string& pattern : patterns)
        for (const bool overData : experts ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
            LayoutDifference d = layoutDifference(graph, plan, pattern, overData);
            if (d.ops.empty())
                return {pattern, overData};
            if (!closest || d.ops.size() < closest->ops.size())
                closest = std::move(d);
        }
    refuse(describeDifference(graph, plan, *closest, "Megatron-LM"));
}

/// Transformer layers per repeated block; refuses when the blocks are not whole layers.
int layersPerBlock(const Graph& graph, const RepeatedBlocks& blocks) {
    // An op of layer N sits in block "layers.N" or a part of it ("layers.N.attn").
    std::set<std::string> layers;
    for (const Op& op : graph.ops())
        if (op.block.rfind("layers.", 0) == 0)
            layers.insert(op.block.substr(0, op.block.find('.', 7)));
    if (layers.empty() || int(layers.size()) % blocks.count() != 0)
        refuse("the model's repeated blocks are not whole transformer layers (" + std::to_string(blocks.count()) +
               " blocks, " + std::to_string(layers.size()) + " layers)");
    return int(layers.size()) / blocks.count();
}

/// The pipeline flags of `plan`'s cut.
void addPipeline(const Graph& graph, const Plan& plan, MegatronArguments& args) {
    const PipelineLayout& cut = plan.pipeline;
    args.emplace_back("--pipeline-model-parallel-size", std::to_string(cut.stages));
    if (plan.settings.schedule == Schedule::GPipe)
        refuse("the plan runs GPipe; Megatron-LM runs 1F1B or the interleaved schedule");
    const auto blocks = findLayers(graph);
    if (!blocks)
        refuse("the model has no repeated layers to cut");
    const int per = layersPerBlock(graph, *blocks);
    const std::vector<int>& n = cut.chunkBlocks;
    const bool even = std::all_of(n.begin(), n.end(), [&](int k) { return k == n.front(); });
    if (cut.virtualStages > 1) {
        if (!even)
            refuse("an interleaved schedule over uneven chunks (" + cut.rangesText() + "); Megatron-LM's "
                   "--num-layers-per-virtual-pipeline-stage needs equal ones");
        args.emplace_back("--num-layers-per-virtual-pipeline-stage", std::to_string(n.front() * per));
        return;
    }
    if (even)
        return;
    // Uneven: the first and last stage's layer counts, the others equal (Megatron's rule).
    const bool middleEven = n.size() <= 2 || std::all_of(n.begin() + 1, n.end() - 1, [&](int k) { return k == n[1]; });
    if (!middleEven)
        refuse("the cut " + cut.rangesText() + " varies between middle stages; Megatron-LM sets only the first "
               "and last stage's layers");
    const int middle = n.size() > 2 ? n[1] : -1;
    if (n.front() != middle)
        args.emplace_back("--decoder-first-pipeline-num-layers", std::to_string(n.front() * per));
    if (n.back() != middle)
        args.emplace_back("--decoder-last-pipeline-num-layers", std::to_string(n.back() * per));
}

} // namespace

MegatronArguments megatronArguments(const Graph& graph, const Plan& plan, int globalBatch) {
    const Mesh& mesh = plan.mesh;
    if (const auto axis = axisWithoutDegree(mesh, true, true))
        refuse("mesh axis '" + *axis + "' (" + mesh.toString() + "): only pipe, data, seq, model and expert axes map "
               "to Megatron-LM's pipeline, data, context, tensor and expert parallelism here");
    if (const auto e = mesh.axisOf(AxisRole::Expert); e && mesh.axisOf(AxisRole::Data) &&
                                                      e->value != mesh.axisOf(AxisRole::Data)->value + 1)
        refuse("the expert axis of " + mesh.toString() + " must follow the data axis: Megatron-LM carves its expert "
               "groups out of consecutive data-parallel ranks");
    // Megatron's data parallelism spans the expert axis: expert parallelism is carved out of it.
    const int tp = mesh.degreeOf(AxisRole::Model), dp = mesh.dataParallelDegree();
    MegatronArguments args;
    const auto [pattern, expertParallel] = patternOf(graph, plan, tp > 1);
    const int ep = mesh.axisOf(AxisRole::Expert) ? mesh.degreeOf(AxisRole::Expert) : expertParallel ? dp : 1;
    args.emplace_back("--tensor-model-parallel-size", std::to_string(tp));
    if (pattern.rfind("megatron-sp", 0) == 0)
        args.emplace_back("--sequence-parallel", "");
    // MoE parallel folding: the expert-parallel group spans the tensor-parallel ranks too.
    const bool folded = pattern.find("+etp1") != std::string::npos && graph.hasRoutedExperts();
    if (const int cp = mesh.degreeOf(AxisRole::Sequence); cp > 1)
        args.emplace_back("--context-parallel-size", std::to_string(cp));
    if (expertParallel || mesh.axisOf(AxisRole::Expert) || folded) {
        args.emplace_back("--expert-model-parallel-size", std::to_string(folded ? ep * tp : ep));
        if (tp > 1)
            args.emplace_back("--expert-tensor-parallel-size", folded ? "1" : std::to_string(tp));
    }
    if (plan.pipeline.active())
        addPipeline(graph, plan, args);
    const StepSettings& s = plan.settings;
    if (s.zeroStage >= 2)
        refuse("ZeRO-" + std::to_string(s.zeroStage) + " has no Megatron-LM flag (its distributed optimizer is "
               "ZeRO-1); export to torchtitan or dtensor (FSDP2), or deepspeed for data parallelism alone");
    if (s.zeroStage == 1)
        args.emplace_back("--use-distributed-optimizer", "");
    if (s.recompute == Recompute::Full) {
        args.emplace_back("--recompute-granularity", "full");
        args.emplace_back("--recompute-method", "uniform");
        args.emplace_back("--recompute-num-layers", "1");
    } else if (s.recompute == Recompute::Selective) {
        args.emplace_back("--recompute-granularity", "selective");
    }
    const long long replicas = static_cast<long long>(dp) * s.microbatches;
    if (globalBatch <= 0 || globalBatch % replicas != 0)
        refuse("a global batch of " + std::to_string(globalBatch) + " does not deal into " + std::to_string(dp) +
               " data-parallel replicas x " + std::to_string(s.microbatches) + " micro-batches");
    args.emplace_back("--micro-batch-size", std::to_string(globalBatch / replicas));
    args.emplace_back("--global-batch-size", std::to_string(globalBatch));
    if (s.overlap && dp > 1) {
        args.emplace_back("--overlap-grad-reduce", "");
        if (s.zeroStage == 1)
            args.emplace_back("--overlap-param-gather", "");
    }
    if (s.tpOverlap != TpOverlap::Off && tp > 1)
        args.emplace_back("--tp-comm-overlap", "");
    if (s.loss == LossKernel::Fused) {
        args.emplace_back("--cross-entropy-loss-fusion", "");
        args.emplace_back("--cross-entropy-fusion-impl", "te");
    }
    // Transformer Engine's recipes: FP8 with one scale per tensor, current scaling (E4M3 forward, E5M2
    // gradients); MXFP8 block scaling takes E4M3 throughout.
    if (s.precision == Precision::FP8) {
        args.emplace_back("--fp8-format", "hybrid");
        args.emplace_back("--fp8-recipe", "tensorwise");
    } else if (s.precision == Precision::MXFP8) {
        args.emplace_back("--fp8-format", "e4m3");
        args.emplace_back("--fp8-recipe", "mxfp8");
    }
    return args;
}

std::string megatronCommandLine(const MegatronArguments& arguments) {
    std::string text;
    for (const auto& [flag, value] : arguments)
        text += (text.empty() ? "" : " \\\n") + flag + (value.empty() ? "" : " " + value);
    return text + "\n";
}

} // namespace shardscope
