#include "engine/export/jax_module.h"

#include "engine/export/python_text.h"
#include "engine/util/error.h"

#include <map>

namespace shardscope {

namespace {

/// `s` with the ZeRO axes added to its first dimension that `shape` lets them split, if any.
TensorSharding withZeroAxes(TensorSharding s, const std::vector<std::int64_t>& shape, const Mesh& mesh, AxisSet zero) {
    const AxisSet missing = zero & ~s.splitAxes();
    if (!missing)
        return s;
    for (std::size_t d = 0; d < s.dims.size() && d < shape.size(); ++d)
        if (shape[d] % (std::int64_t(mesh.groupSize(s.dims[d])) * mesh.groupSize(missing)) == 0) {
            s.dims[d] |= missing;
            return s;
        }
    return s;
}

} // namespace

std::string partitionSpec(const TensorSharding& sharding, const Mesh& mesh) {
    std::string spec = "P(";
    for (std::size_t d = 0; d < sharding.dims.size(); ++d) {
        std::vector<std::string> names;
        for (std::size_t a = 0; a < mesh.rank(); ++a)
            if (sharding.dims[d] & axisBit(AxisId(a)))
                names.push_back(pyString(mesh.axes[a].name));
        std::string dim = names.empty() ? std::string("None") : names.size() == 1 ? names.front() : std::string("(");
        if (names.size() > 1) {
            for (std::size_t k = 0; k < names.size(); ++k)
                dim += (k ? ", " : "") + names[k];
            dim += ")";
        }
        spec += (d ? ", " : "") + dim;
    }
    return spec + ")";
}

std::string jaxModule(const Graph& graph, const Plan& plan) {
    const Mesh& mesh = plan.mesh;
    if (mesh.pipelineStages() > 1)
        throw InputError("jax export: the mesh " + mesh.toString() + " has a pipe axis; jax.sharding has no pipeline "
                         "schedule (export the plan of its other axes)");
    if (plan.settings.precision != Precision::BF16)
        throw InputError("jax export: precision " + std::string(precisionName(plan.settings.precision)) +
                         ": this module sets shardings only; FP8 in JAX is the model's own dot_general with "
                         "quantization (export to megatron or torchtitan)");
    const AxisSet zero = plan.settings.zeroStage > 0 ? plan.settings.zeroAxes : 0;
    // Each parameter's first consumer fixes its layout.
    std::map<std::size_t, TensorSharding> params;
    std::string activations;
    for (std::size_t o = 0; o < graph.ops().size(); ++o) {
        const Op& op = graph.ops()[o];
        const OpStrategy& s = plan.ops[o].strategy;
        for (std::size_t k = 0; k < op.inputs.size(); ++k)
            if (graph.tensor(op.inputs[k]).role == TensorRole::Parameter)
                params.emplace(op.inputs[k].index(), inputSharding(op, k, s));
        for (std::size_t k = 0; k < op.outputs.size(); ++k) {
            TensorSharding out = outputSharding(op, k, s);
            out.partial = 0;
            activations += "    " + pyString(graph.tensor(op.outputs[k]).name) + ": " + partitionSpec(out, mesh) + ",\n";
        }
    }
    std::string paramSpecs, stateSpecs;
    for (const auto& [t, sharding] : params) {
        const Tensor& tensor = graph.tensors()[t];
        const TensorSharding sharded = withZeroAxes(sharding, tensor.shape, mesh, zero);
        paramSpecs += "    " + pyString(tensor.name) + ": " +
                      partitionSpec(plan.settings.zeroStage >= 3 ? sharded : sharding, mesh) + ",\n";
        stateSpecs += "    " + pyString(tensor.name) + ": " + partitionSpec(sharded, mesh) + ",\n";
    }
    std::vector<std::string> sizes, names;
    for (const MeshAxis& a : mesh.axes) {
        sizes.push_back(std::to_string(a.size));
        names.push_back(pyString(a.name));
    }
    return "\"\"\"Shardscope plan " + plan.name + " of " + graph.name + " on " + mesh.toString() + " (ZeRO-" +
           std::to_string(plan.settings.zeroStage) + ", " + std::to_string(plan.settings.microbatches) +
           " micro-batches).\"\"\"\n\n"
           "import jax\n"
           "from jax.sharding import NamedSharding, PartitionSpec as P\n\n"
           "MESH_SHAPE = (" + pyTupleItems(sizes) + ")\n"
           "MESH_AXES = (" + pyTupleItems(names) + ")\n\n\n"
           "def make_mesh():\n"
           "    \"\"\"The device mesh the plan is for.\"\"\"\n"
           "    return jax.make_mesh(MESH_SHAPE, MESH_AXES)\n\n\n"
           "# Per parameter, by name: its layout (ZeRO-3: its storage, gathered where used).\n"
           "PARAM_SPECS = {\n" + paramSpecs + "}\n\n"
           "# Per parameter: the layout of its optimizer state (split over the ZeRO axes too from ZeRO-1).\n"
           "OPTIMIZER_STATE_SPECS = {\n" + stateSpecs + "}\n\n"
           "# Per activation, by name: the layout to pin with jax.lax.with_sharding_constraint.\n"
           "ACTIVATION_SPECS = {\n" + activations + "}\n\n\n"
           "def shardings(mesh, specs=PARAM_SPECS):\n"
           "    \"\"\"NamedShardings of `specs` on `mesh`, for jax.jit's in_shardings and out_shardings.\"\"\"\n"
           "    return {name: NamedSharding(mesh, spec) for name, spec in specs.items()}\n";
}

} // namespace shardscope
