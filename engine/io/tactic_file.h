#pragma once
// The tactic script format (`*.tactics.json`): {"format": "shardscope-tactics", "version": 1,
// "name": ..., "tactics": [{"tactic": "batch", "axis": "data"}, {"tactic": "megatron", "axis":
// "model"}, {"tactic": "zero", "stage": 3, "axis": "data"}, {"tactic": "shard", "tensors":
// ["layers.*.mlp.fc1.weight"], "dim": 1, "axis": "model"}, {"tactic": "auto", "axis": "model",
// "algorithm": "pase"}]}. Plan files carry the same tactic objects.

#include "engine/io/json_fields.h"
#include "engine/plans/tactic.h"

#include <string>
#include <vector>

namespace shardscope {

/// Reads a tactic script; `source` names it in errors. Throws InputError naming the tactic and field.
std::vector<Tactic> parseTacticsJson(const std::string& text, const std::string& source);
/// Reads the tactic object at `path` (say "tactics[2]"); extra fields in `extra` are allowed.
Tactic parseTactic(const nlohmann::json& obj, const JsonFields& in, const std::string& path,
                   std::initializer_list<const char*> extra = {});
/// `t` as a tactic object.
nlohmann::json tacticToJson(const Tactic& t);
/// A tactic script document called `name`.
std::string tacticsToJson(const std::vector<Tactic>& tactics, const std::string& name);
/// Reads the tactic script at `path`.
std::vector<Tactic> loadTactics(const std::string& path);

} // namespace shardscope
