#pragma once
// The JSON form of an evaluation: the contract of `shardscope-cli evaluate --json`.

#include "engine/evaluation/evaluation.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace shardscope {

/// The summary fields, memory breakdown, mesh and per-op breakdown of `e` for the ops of `graph`.
/// `step_time_s` is the plan's step time: `simulatedStep` when given (named again as
/// `simulated_step_time_s`), else the analytic one; `analytic_step_time_s` is e.stepTime, the search's
/// estimate, and the time fields break it down.
nlohmann::json evaluationToJson(const Evaluation& e, const Graph& graph, std::optional<double> simulatedStep = {});

} // namespace shardscope
