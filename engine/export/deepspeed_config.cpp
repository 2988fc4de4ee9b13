#include "engine/export/deepspeed_config.h"

#include "engine/export/layout_match.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

namespace shardscope {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw InputError("deepspeed export: " + why); }

/// The dtype of the graph's parameters (the training precision), or Fp32 without any.
DType parameterDtype(const Graph& graph) {
    for (const Tensor& t : graph.tensors())
        if (t.role == TensorRole::Parameter)
            return t.dtype;
    return DType::FP32;
}

} // namespace

std::string deepspeedConfig(const Graph& graph, const Plan& plan, int globalBatch) {
    const Mesh& mesh = plan.mesh;
    if (mesh.rank() != 1 || mesh.axes.front().role() != AxisRole::Data)
        refuse("the mesh " + mesh.toString() + " has axes besides one data axis; tensor and pipeline parallelism "
               "are the model code's under DeepSpeed (export to megatron)");
    const StepSettings& s = plan.settings;
    if (s.recompute != Recompute::None)
        refuse("activation recomputation is the model's code under DeepSpeed (deepspeed.checkpointing.checkpoint "
               "around each layer), not its config: export the plan without it and add it there");
    if (s.precision != Precision::BF16)
        refuse("precision " + std::string(precisionName(s.precision)) + ": DeepSpeed's config has no FP8 setting "
               "(FP8 is Transformer Engine's layers in the model's code); export to megatron or torchtitan");
    if (s.zeroStage > 0 && s.zeroAxes != axisBit(AxisId(0)))
        refuse("ZeRO shards over the data axis only under DeepSpeed");
    if (const LayoutDifference d = layoutDifference(graph, plan, "dp"); !d.ops.empty())
        refuse(describeDifference(graph, plan, d, "DeepSpeed"));
    const long long devices = mesh.deviceCount();
    const long long perStep = devices * s.microbatches;
    if (globalBatch <= 0 || globalBatch % perStep != 0)
        refuse("a global batch of " + std::to_string(globalBatch) + " does not deal into " + std::to_string(devices) +
               " GPUs x " + std::to_string(s.microbatches) + " micro-batches");
    nlohmann::ordered_json config{{"train_batch_size", globalBatch},
                                  {"train_micro_batch_size_per_gpu", globalBatch / perStep},
                                  {"gradient_accumulation_steps", s.microbatches},
                                  {"zero_optimization",
                                   {{"stage", s.zeroStage},
                                    {"overlap_comm", s.overlap},
                                    {"contiguous_gradients", true},
                                    {"reduce_bucket_size", static_cast<long long>(s.bucketBytes)}}}};
    const DType dtype = parameterDtype(graph);
    config["bf16"] = {{"enabled", dtype == DType::BF16}};
    config["fp16"] = {{"enabled", dtype == DType::FP16}};
    return config.dump(1) + "\n";
}

} // namespace shardscope
