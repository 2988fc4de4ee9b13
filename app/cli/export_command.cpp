#include "commands.h"

#include "engine/export/deepspeed_config.h"
#include "engine/export/dtensor_module.h"
#include "engine/export/jax_module.h"
#include "engine/export/megatron_args.h"
#include "engine/export/torchtitan_config.h"
#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/util/error.h"

namespace shardscope::cli {

namespace {

/// The configuration text of `plan` in format `f`.
std::string exported(const std::string& f, const Scenario& s, const ModelRequest& model) {
    if (f == "jax")
        return jaxModule(s.graph, s.plan); // per-tensor layouts: no batch needed
    if (f == "dtensor")
        return dtensorModule(s.graph, s.plan); // per-module styles: no batch needed
    // The per-step batch: the builder's (a preset, its --set batch=, or a Hugging Face config's).
    const auto builder = resolveBuilder(model);
    if (!builder)
        throw InputError("export: " + model.spec.substr(0, 80) +
                         " fixes no global batch; export a preset or Hugging Face model (--set batch=B)");
    const int batch = builder->params.batch;
    if (f == "megatron")
        return megatronCommandLine(megatronArguments(s.graph, s.plan, batch));
    if (f == "deepspeed")
        return deepspeedConfig(s.graph, s.plan, batch);
    return torchtitanConfig(s.graph, s.plan, batch, builder->params.seq);
}

} // namespace

int runExport(const CliOptions& options, std::ostream& out) {
    const std::string& f = options.exportFormat;
    if (f != "megatron" && f != "deepspeed" && f != "torchtitan" && f != "jax" && f != "dtensor")
        throw InputError("export --format " + f.substr(0, 40) +
                         ": this build exports megatron (Megatron-LM arguments), deepspeed (its config JSON), "
                         "torchtitan (its TOML), jax (a Python module of PartitionSpecs) and dtensor (a Python module of "
                         "PyTorch parallel styles)");
    const std::string text = exported(f, loadScenario(options.scenario), options.scenario.model);
    if (options.out.empty())
        out << text;
    else
        writeFileAtomically(options.out, text);
    return 0;
}

} // namespace shardscope::cli
