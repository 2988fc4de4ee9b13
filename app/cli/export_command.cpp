#include "commands.h"

#include "engine/export/deepspeed_config.h"
#include "engine/export/megatron_args.h"
#include "engine/export/torchtitan_config.h"
#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/util/error.h"

namespace shardscope::cli {

int runExport(const CliOptions& options, std::ostream& out) {
    if (options.exportFormat != "megatron" && options.exportFormat != "deepspeed" && options.exportFormat != "torchtitan")
        throw InputError("export --format " + options.exportFormat.substr(0, 40) +
                         ": this build exports megatron (Megatron-LM arguments), deepspeed (its config JSON) and "
                         "torchtitan (its TOML)");
    const Scenario s = loadScenario(options.scenario);
    // The per-step batch: the builder's (a preset, its --set batch=, or a Hugging Face config's).
    const auto builder = resolveBuilder(options.scenario.model);
    if (!builder)
        throw InputError("export: " + options.scenario.model.spec.substr(0, 80) +
                         " fixes no global batch; export a preset or Hugging Face model (--set batch=B)");
    const int batch = builder->params.batch;
    std::string text;
    if (options.exportFormat == "megatron")
        text = megatronCommandLine(megatronArguments(s.graph, s.plan, batch));
    else if (options.exportFormat == "deepspeed")
        text = deepspeedConfig(s.graph, s.plan, batch);
    else
        text = torchtitanConfig(s.graph, s.plan, batch, builder->params.seq);
    if (options.out.empty())
        out << text;
    else
        writeFileAtomically(options.out, text);
    return 0;
}

} // namespace shardscope::cli
