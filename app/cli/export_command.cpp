#include "commands.h"

#include "engine/export/plan_export.h"
#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/util/error.h"

namespace shardscope::cli {

int runExport(const CliOptions& options, std::ostream& out) {
    const auto format = parseExportFormat(options.exportFormat);
    if (!format)
        throw InputError("export --format " + options.exportFormat.substr(0, 40) +
                         ": this build exports megatron (Megatron-LM arguments), deepspeed (its config JSON), "
                         "torchtitan (its TOML), jax (a Python module of PartitionSpecs) and dtensor (a Python module of "
                         "PyTorch parallel styles)");
    const Scenario s = loadScenario(options.scenario);
    // The per-step batch: the builder's (a preset, its --set batch=, or a Hugging Face config's).
    std::optional<ExportBatch> batch;
    if (const auto& builder = s.source.builder)
        batch = ExportBatch{builder->params.batch, builder->params.seq};
    const std::string text = exportPlan(*format, *s.graph, s.plan, batch);
    if (options.out.empty())
        out << text;
    else
        writeFileAtomically(options.out, text);
    return 0;
}

} // namespace shardscope::cli
