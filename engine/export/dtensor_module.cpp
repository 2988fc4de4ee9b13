#include "engine/export/dtensor_module.h"

#include "engine/export/dtensor_styles.h"
#include "engine/export/layout_match.h"
#include "engine/export/python_text.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/util/error.h"

#include <map>
#include <set>

namespace shardscope {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw InputError("dtensor export: " + why); }

/// Per op, the module path of its repeated block ("layers.7"), or empty outside the blocks.
std::vector<std::string> blockPaths(const Graph& graph, const std::optional<RepeatedBlocks>& blocks) {
    std::vector<std::string> path(graph.ops().size());
    if (!blocks)
        return path;
    for (const std::vector<OpId>& block : blocks->blocks) {
        // The longest common prefix of the block's op names that ends at a dot.
        std::string prefix = graph.op(block.front()).name;
        for (OpId o : block) {
            const std::string& name = graph.op(o).name;
            std::size_t n = 0;
            while (n < prefix.size() && n < name.size() && prefix[n] == name[n])
                ++n;
            prefix.resize(n);
        }
        const std::size_t dot = prefix.rfind('.');
        prefix = dot == std::string::npos ? std::string() : prefix.substr(0, dot);
        for (OpId o : block)
            path[o.index()] = prefix;
    }
    return path;
}

/// "layers.7" -> "layers.*": the block path with its trailing index made a wildcard (unchanged without one).
std::string wildcard(const std::string& blockPath) {
    const std::size_t dot = blockPath.rfind('.');
    const std::string last = blockPath.substr(dot == std::string::npos ? 0 : dot + 1);
    if (last.empty() || last.find_first_not_of("0123456789") != std::string::npos)
        return blockPath;
    return blockPath.substr(0, blockPath.size() - last.size()) + "*";
}

/// The TP_PLAN entries: one wildcard key where every layer styles that op alike, else one per op.
std::string tpPlanEntries(const Graph& graph, const std::vector<DtensorStyle>& styles,
                          const std::vector<std::string>& paths, int blockCount) {
    std::map<std::string, std::set<std::string>> textsOf; // wildcard key -> distinct styles
    std::map<std::string, int> countOf;
    auto wildKey = [&](const DtensorStyle& s) {
        const std::string& path = paths[s.op];
        return path.empty() ? graph.ops()[s.op].name : wildcard(path) + graph.ops()[s.op].name.substr(path.size());
    };
    for (const DtensorStyle& s : styles) {
        textsOf[wildKey(s)].insert(s.python());
        ++countOf[wildKey(s)];
    }
    std::string entries;
    std::set<std::string> written;
    for (const DtensorStyle& s : styles) {
        const std::string key = wildKey(s);
        const bool folded = !paths[s.op].empty() && textsOf[key].size() == 1 && countOf[key] == blockCount;
        const std::string name = folded ? key : graph.ops()[s.op].name;
        if (!written.insert(name).second)
            continue;
        if (s.splitTableKeptWhole)
            entries += "    # The plan splits " + graph.ops()[s.op].name + "'s table over the sequence; this style\n"
                       "    # keeps it whole on every rank (its module must add the rows of its local positions).\n";
        entries += "    " + pyString(name) + ": " + s.python() + ",\n";
    }
    return entries;
}

/// The Python list of `names`, one per line at `indent`.
std::string pyList(const std::vector<std::string>& names, const std::string& indent) {
    std::string out = "[";
    for (const std::string& n : names)
        out += "\n" + indent + "    " + pyString(n) + ",";
    return out + (names.empty() ? "]" : "\n" + indent + "]");
}

/// Checks the plan's data axis splits the batch of every op and nothing else.
void checkDataAxis(const Graph& graph, const Plan& plan, AxisId data) {
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        const Op& op = graph.ops()[o];
        const int f = plan.ops[o].strategy.factorOfAxis[data.index()];
        const int batch = op.rule.findFactor(op.hints.batch);
        if (f != batch)
            refuse("op " + op.name + " is " + plan.ops[o].strategy.toString(op.rule, plan.mesh) + ": the data axis "
                   "must split the batch of every op (" + (batch < 0 ? std::string("it has none") : op.hints.batch) +
                   ") for replicate or fully_shard");
    }
}

/// The schedule class of torch.distributed.pipelining for `s`.
std::string scheduleClass(const StepSettings& s) {
    switch (s.schedule) {
    case Schedule::GPipe:
        return "ScheduleGPipe";
    case Schedule::Interleaved:
        return "ScheduleInterleaved1F1B";
    case Schedule::OneFOneB:
        break;
    }
    return "Schedule1F1B";
}

const char* kFunctions = R"PY(

def make_mesh(device_type="cuda"):
    """The device mesh the plan is for, its dimensions named as the plan's axes."""
    return init_device_mesh(device_type, MESH_SHAPE, mesh_dim_names=MESH_DIM_NAMES)


def stage_modules(pipe_rank):
    """The module names of each model chunk that pipe rank `pipe_rank` runs (chunk c on rank c % P)."""
    stages = MESH_SHAPE[MESH_DIM_NAMES.index("pipe")] if "pipe" in MESH_DIM_NAMES else 1
    return [names for chunk, names in enumerate(STAGE_MODULES) if chunk % stages == pipe_rank]


def _present(model, pattern):
    return any(fnmatch.fnmatchcase(name, pattern) for name, _ in model.named_modules())


def _replace(model, name, wrap):
    parent, _, child = name.rpartition(".")
    owner = model.get_submodule(parent) if parent else model
    setattr(owner, child, wrap(owner.get_submodule(child)))


def parallelize(model, mesh):
    """Applies the plan to `model` (the whole model, or one pipeline stage's part) on `mesh`."""
    plan = {name: style for name, style in TP_PLAN.items() if _present(model, name)}
    if plan:
        parallelize_module(model, mesh[TP_DIM], plan)
    for name in RECOMPUTE_UNITS:
        if _present(model, name):
            _replace(model, name, checkpoint_wrapper)
    if DATA_PARALLEL == "fully_shard":
        for name in FSDP_UNITS:
            if _present(model, name):
                fully_shard(model.get_submodule(name), mesh=mesh["data"], reshard_after_forward=RESHARD_AFTER_FORWARD)
        fully_shard(model, mesh=mesh["data"], reshard_after_forward=RESHARD_AFTER_FORWARD)
    elif DATA_PARALLEL == "replicate":
        replicate(model, device_mesh=mesh["data"])
    return model
)PY";

} // namespace

std::string dtensorModule(const Graph& graph, const Plan& plan) {
    const Mesh& mesh = plan.mesh;
    if (const auto axis = axisWithoutDegree(mesh))
        refuse("mesh axis '" + *axis + "' (" + mesh.toString() + "): this export maps pipe, data and model axes only");
    const StepSettings& s = plan.settings;
    const auto data = mesh.axisOf(AxisRole::Data), model = mesh.axisOf(AxisRole::Model);
    if (s.zeroStage == 1)
        refuse("ZeRO-1 has no FSDP2 setting: fully_shard shards the parameters too (ZeRO-3, or ZeRO-2 with "
               "reshard_after_forward=False)");
    if (s.zeroStage > 1 && (!data || s.zeroAxes != axisBit(*data)))
        refuse("ZeRO-" + std::to_string(s.zeroStage) + " over axes other than data: fully_shard shards over the data "
               "mesh dimension here");
    if (s.precision != Precision::BF16)
        refuse("precision " + std::string(precisionName(s.precision)) + ": this module applies the layouts only; "
               "export to torchtitan (torchao's float8 and MX converters) or megatron (Transformer Engine)");
    if (s.recompute == Recompute::Selective)
        refuse("the plan recomputes attention only (Megatron's selective recomputation): checkpoint_wrapper wraps "
               "whole modules");
    if (data)
        checkDataAxis(graph, plan, *data);
    const std::optional<RepeatedBlocks> blocks = findLayers(graph);
    const std::vector<std::string> paths = blockPaths(graph, blocks);
    std::vector<std::string> units;
    for (std::size_t o = 0; o < paths.size(); ++o)
        if (!paths[o].empty() && (units.empty() || units.back() != paths[o]))
            units.push_back(paths[o]);
    if (s.recompute == Recompute::Full && units.empty())
        refuse("full recomputation checkpoints each layer, and model '" + graph.name + "' has no repeated layers");
    const std::vector<DtensorStyle> styles = model ? dtensorStyles(graph, plan, *model) : std::vector<DtensorStyle>{};

    std::vector<std::string> sizes, names;
    for (const MeshAxis& a : mesh.axes) {
        sizes.push_back(std::to_string(a.size));
        names.push_back(pyString(a.name));
    }
    const bool sharded = data && s.zeroStage >= 2, replicated = data && s.zeroStage == 0 && mesh.size(*data) > 1;
    std::string text = "\"\"\"Shardscope plan " + plan.name + " of " + graph.name + " on " + mesh.toString() +
                       " for PyTorch DTensor (ZeRO-" + std::to_string(s.zeroStage) + ", " +
                       std::to_string(s.microbatches) + " micro-batches).\n\n"
                       "Module names are the ops of Shardscope's graph: rename them to your model's. An attention\n"
                       "module split ColwiseParallel must run with its local head count (heads / tensor-parallel size).\n"
                       "\"\"\"\n\n"
                       "import fnmatch\n\n"
                       "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n"
                       "from torch.distributed._composable.replicate import replicate\n"
                       "from torch.distributed.device_mesh import init_device_mesh\n"
                       "from torch.distributed.fsdp import fully_shard\n"
                       "from torch.distributed.tensor import Replicate, Shard\n"
                       "from torch.distributed.tensor.parallel import (\n"
                       "    ColwiseParallel,\n    RowwiseParallel,\n    SequenceParallel,\n    parallelize_module,\n)\n\n"
                       "MESH_SHAPE = (" + pyTupleItems(sizes) + ")\n"
                       "MESH_DIM_NAMES = (" + pyTupleItems(names) + ")\n"
                       "N_MICROBATCHES = " + std::to_string(s.microbatches) + "\n\n"
                       "# Tensor parallelism on mesh dimension TP_DIM, by module name.\n"
                       "TP_DIM = " + pyString(model ? mesh.axes[model->index()].name : std::string("model")) + "\n"
                       "TP_PLAN = {\n" + tpPlanEntries(graph, styles, paths, blocks ? blocks->count() : 0) + "}\n\n"
                       "# Data parallelism over \"data\": fully_shard per layer then the root (ZeRO-2/3), or replicate.\n"
                       "DATA_PARALLEL = " + (sharded ? "\"fully_shard\"" : replicated ? "\"replicate\"" : "None") + "\n"
                       "RESHARD_AFTER_FORWARD = " + (s.zeroStage >= 3 ? "True" : "False") + "\n"
                       "FSDP_UNITS = " + pyList(sharded ? units : std::vector<std::string>{}, "") + "\n\n"
                       "# Full recomputation: each layer under checkpoint_wrapper.\n"
                       "RECOMPUTE_UNITS = " + pyList(s.recompute == Recompute::Full ? units : std::vector<std::string>{}, "") +
                       "\n\n";
    std::vector<std::vector<std::string>> chunks;
    if (plan.pipeline.active()) {
        chunks.resize(std::size_t(plan.pipeline.chunks()));
        for (std::size_t o = 0; o < graph.ops().size(); ++o) {
            bool hasParameter = false;
            for (TensorId t : graph.ops()[o].inputs)
                hasParameter = hasParameter || graph.tensor(t).role == TensorRole::Parameter;
            const std::string name = paths[o].empty() ? (hasParameter ? graph.ops()[o].name : "") : paths[o];
            std::vector<std::string>& chunk = chunks[std::size_t(plan.pipeline.chunkOf[o])];
            if (!name.empty() && (chunk.empty() || chunk.back() != name))
                chunk.push_back(name);
        }
    }
    text += "# Pipeline (torch.distributed.pipelining): the schedule and the modules of each model chunk.\n"
            "PIPELINE_SCHEDULE = " + (plan.pipeline.active() ? pyString(scheduleClass(s)) : std::string("None")) + "\n"
            "STAGE_MODULES = [";
    for (const std::vector<std::string>& chunk : chunks)
        text += "\n    " + pyList(chunk, "    ") + ",";
    text += chunks.empty() ? "]\n" : "\n]\n";
    return text + kFunctions;
}

} // namespace shardscope
