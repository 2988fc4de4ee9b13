#include "engine/export/plan_export.h"

#include "engine/export/deepspeed_config.h"
#include "engine/export/dtensor_module.h"
#include "engine/export/jax_module.h"
#include "engine/export/megatron_args.h"
#include "engine/export/torchtitan_config.h"
#include "engine/util/error.h"

namespace shardscope {

const std::vector<ExportFormatInfo>& exportFormats() {
    static const std::vector<ExportFormatInfo> formats{
        {ExportFormat::Megatron, "megatron", "Megatron-LM arguments", ".megatron.sh", true},
        {ExportFormat::Torchtitan, "torchtitan", "torchtitan TOML", ".torchtitan.toml", true},
        {ExportFormat::Deepspeed, "deepspeed", "DeepSpeed config JSON", ".deepspeed.json", true},
        {ExportFormat::Jax, "jax", "JAX module (PartitionSpecs)", "_jax.py", false},
        {ExportFormat::Dtensor, "dtensor", "PyTorch DTensor module", "_dtensor.py", false},
    };
    return formats;
}

std::optional<ExportFormat> parseExportFormat(std::string_view name) {
    for (const ExportFormatInfo& f : exportFormats())
        if (f.name == name)
            return f.format;
    return std::nullopt;
}

const ExportFormatInfo& exportFormatInfo(ExportFormat format) {
    for (const ExportFormatInfo& f : exportFormats())
        if (f.format == format)
            return f;
    return exportFormats().front();
}

std::string exportPlan(ExportFormat format, const Graph& graph, const Plan& plan, std::optional<ExportBatch> batch) {
    if (format == ExportFormat::Jax)
        return jaxModule(graph, plan);
    if (format == ExportFormat::Dtensor)
        return dtensorModule(graph, plan);
    if (!batch)
        throw InputError(exportFormatInfo(format).name + " export: model '" + graph.name +
                         "' fixes no global batch; export a preset or Hugging Face model (--set batch=B)");
    switch (format) {
    case ExportFormat::Megatron:
        return megatronCommandLine(megatronArguments(graph, plan, batch->globalBatch));
    case ExportFormat::Deepspeed:
        return deepspeedConfig(graph, plan, batch->globalBatch);
    case ExportFormat::Torchtitan:
    case ExportFormat::Jax:
    case ExportFormat::Dtensor:
        break;
    }
    return torchtitanConfig(graph, plan, batch->globalBatch, batch->seqLen);
}

} // namespace shardscope
