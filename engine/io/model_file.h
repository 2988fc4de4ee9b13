#pragma once
// The JSON model format (`*.model.json`, docs/DESIGN.md, Files) and the resolution of a model argument
// (preset name, model file, Hugging Face config.json).

#include "engine/builders/model_params.h"
#include "engine/ir/graph.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// Parses a model document's text; `source` names it in errors. Throws InputError naming the op and field.
Graph parseModelJson(const std::string& text, const std::string& source);
/// Reads a parsed model document, as parseModelJson.
Graph parseModelDocument(const nlohmann::json& doc, const std::string& source);
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

/// A model argument read once: a builder (a preset, or a Hugging Face config.json read and mapped),
/// an ONNX file (imported when built), or a *.model.json document parsed once. Immutable; copies
/// share the document.
struct ModelSource {
    ModelRequest request;
    std::optional<BuilderModel> builder;            ///< presets and Hugging Face configs, overrides applied
    std::shared_ptr<const nlohmann::json> document; ///< *.model.json files
    bool onnx = false;

    /// The graph of one micro-batch of `microbatches`. Throws InputError naming the file or option.
    Graph build(int microbatches) const;
    /// The same model with global batch `batch` (builders only; files fix their own).
    ModelSource withBatch(std::optional<int> batch) const;
};

/// Resolves `request`, reading its file (if any) once. Throws InputError naming the problem.
ModelSource readModelSource(const ModelRequest& request);

/// The builder behind `request` (a preset or a Hugging Face config.json, with its overrides), or
/// nullopt for a *.model.json file, which fixes its own shapes. Throws InputError naming the problem.
std::optional<BuilderModel> resolveBuilder(const ModelRequest& request);

/// Loads or builds the graph of one micro-batch. Throws InputError naming the file or option.
Graph loadModel(const ModelRequest& request, int microbatches);

} // namespace shardscope
