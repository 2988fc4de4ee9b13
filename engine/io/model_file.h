#pragma once
// The JSON model format (`*.model.json`, docs/DESIGN.md, Files) and the resolution of a model argument
// (preset name, model file, Hugging Face config.json).

#include "engine/builders/model_params.h"
#include "engine/ir/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// Parses a model document; `source` names it in errors. Throws InputError naming the op and field.
Graph parseModelJson(const std::string& text, const std::string& source);
/// The model as a JSON document that parseModelJson reads back to the same graph.
std::string modelToJson(const Graph& graph);

/// What the user asked for: a preset name or a path, builder overrides and the global batch.
struct ModelRequest {
    std::string spec;                 ///< preset name, *.model.json, or a Hugging Face config.json
    std::vector<std::string> sets;    ///< "key=value" builder overrides
    std::optional<int> batch;         ///< global batch override
};

/// A model that a built-in builder makes: its family, parameters (overrides applied) and name.
struct BuilderModel {
    std::string family;
    ModelParams params;
    std::string name;
};

/// The builder behind `request` (a preset or a Hugging Face config.json, with its overrides), or
/// nullopt for a *.model.json file, which fixes its own shapes. Throws InputError naming the problem.
std::optional<BuilderModel> resolveBuilder(const ModelRequest& request);

/// Loads or builds the graph of one micro-batch. Throws InputError naming the file or option.
Graph loadModel(const ModelRequest& request, int microbatches);

} // namespace shardscope
