#pragma once
// What a file the user dropped or picked holds, told by its content: a model (our JSON, a Hugging
// Face config.json, ONNX), a cluster, a plan or a tactic script.

#include <string>

namespace shardscope {

enum class FileKind { Model, Cluster, Plan, Tactics, Unknown };

/// The kind of the file at `path`: ONNX by its extension; JSON by its top-level "format" field
/// ("shardscope-model", "-cluster", "-plan", "-tactics") or a Hugging Face "model_type", whichever
/// comes first, reading the file only that far (the loader reads it whole, once). Unknown for
/// anything else, including unreadable files and JSON malformed before the field (opening says why).
FileKind sniffFileKind(const std::string& path);

} // namespace shardscope
