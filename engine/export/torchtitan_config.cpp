#include "engine/export/torchtitan_config.h"

#include "engine/export/layout_match.h"
#include "engine/util/error.h"

#include <algorithm>

namespace shardscope {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw InputError("torchtitan export: " + why); }

std::string line(const std::string& key, const std::string& value) { return key + " = " + value + "\n"; }
std::string quoted(const std::string& s) { return "\"" + s + "\""; }

} // namespace

std::string torchtitanConfig(const Graph& graph, const Plan& plan, int globalBatch, int seqLen) {
    const Mesh& mesh = plan.mesh;
    if (const auto axis = axisWithoutDegree(mesh, true))
        refuse("mesh axis '" + *axis + "' (" + mesh.toString() + "): only pipe, data, seq and model axes map to "
               "torchtitan's pipeline, data, context and tensor parallel degrees here");
    const int tp = mesh.degreeOf(AxisRole::Model), dp = mesh.degreeOf(AxisRole::Data), pp = mesh.pipelineStages();
    if (const LayoutDifference d = layoutDifference(graph, plan, tp > 1 ? "megatron-sp" : "dp"); !d.ops.empty())
        refuse(describeDifference(graph, plan, d, "torchtitan"));
    const StepSettings& s = plan.settings;
    if (s.zeroStage == 1)
        refuse("ZeRO-1 has no torchtitan setting: FSDP2 shards the parameters too (ZeRO-3, or ZeRO-2 with "
               "fsdp_reshard_after_forward = \"never\")");
    if (s.recompute == Recompute::Selective)
        refuse("the plan recomputes attention only (Megatron's selective recomputation); torchtitan's selective "
               "checkpointing is a per-op or every-n-layers policy, priced differently");
    const long long replicas = static_cast<long long>(dp) * s.microbatches;
    if (globalBatch <= 0 || globalBatch % replicas != 0)
        refuse("a global batch of " + std::to_string(globalBatch) + " does not deal into " + std::to_string(dp) +
               " data-parallel replicas x " + std::to_string(s.microbatches) + " micro-batches");
    const long long microbatch = globalBatch / replicas;
    // Pipelined, one step's micro-batches are the pipeline's; otherwise they are gradient accumulation.
    const long long local = pp > 1 ? microbatch * s.microbatches : microbatch;
    std::string toml = "[training]\n" + line("local_batch_size", std::to_string(local)) +
                       line("global_batch_size", std::to_string(globalBatch)) + line("seq_len", std::to_string(seqLen));
    toml += "\n[parallelism]\n";
    toml += line("data_parallel_replicate_degree", std::to_string(s.zeroStage == 0 ? dp : 1));
    toml += line("data_parallel_shard_degree", std::to_string(s.zeroStage == 0 ? 1 : dp));
    if (s.zeroStage > 0)
        toml += line("fsdp_reshard_after_forward", quoted(s.zeroStage == 2 ? "never" : "default"));
    toml += line("tensor_parallel_degree", std::to_string(tp));
    toml += line("enable_async_tensor_parallel", s.tpOverlap != TpOverlap::Off && tp > 1 ? "true" : "false");
    toml += line("pipeline_parallel_degree", std::to_string(pp));
    if (pp > 1) {
        const std::vector<int>& n = plan.pipeline.chunkBlocks;
        if (plan.pipeline.virtualStages > 1)
            refuse("the interleaved schedule: this export writes one stage per rank (1F1B or GPipe)");
        if (!std::all_of(n.begin(), n.end(), [&](int k) { return k == n.front(); }))
            refuse("the uneven cut " + plan.pipeline.rangesText() + ": this export writes equal stages");
        toml += line("pipeline_parallel_schedule", quoted(s.schedule == Schedule::GPipe ? "GPipe" : "1F1B"));
        toml += line("pipeline_parallel_microbatch_size", std::to_string(microbatch));
    }
    toml += line("context_parallel_degree", std::to_string(mesh.degreeOf(AxisRole::Sequence)));
    toml += "\n[activation_checkpoint]\n";
    toml += line("mode", quoted(s.recompute == Recompute::Full ? "full" : "none"));
    // torchao's float8 (tensorwise) or MX converter on every nn.Linear but the LM head ("output"); under
    // FSDP the float8 weights are all-gathered in float8, as the plan's ZeRO-3 gathers are priced.
    if (s.precision == Precision::FP8) {
        toml += "\n[model]\n" + line("converters", "[\"float8\"]");
        toml += "\n[float8]\n" + line("recipe_name", quoted("tensorwise"));
        toml += line("enable_fsdp_float8_all_gather", s.zeroStage >= 3 ? "true" : "false");
        toml += line("precompute_float8_dynamic_scale_for_fsdp", s.zeroStage >= 3 ? "true" : "false");
        toml += line("filter_fqns", "[\"output\"]");
    } else if (s.precision == Precision::MXFP8) {
        toml += "\n[model]\n" + line("converters", "[\"mx\"]");
        toml += "\n[mx]\n" + line("recipe_name", quoted("mxfp8")) + line("filter_fqns", "[\"output\"]");
    }
    return toml;
}

} // namespace shardscope
