#pragma once
// The JSON form of an evaluation: the contract of `shardscope-cli evaluate --json`.

#include "engine/cost/evaluation.h"

#include <nlohmann/json.hpp>

namespace shardscope {

/// The summary fields, memory breakdown, mesh and per-op breakdown of `e` for the ops of `graph`.
nlohmann::json evaluationToJson(const Evaluation& e, const Graph& graph);

} // namespace shardscope
