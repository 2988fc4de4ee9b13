#pragma once
// The plan format (`*.plan.json`, docs/DESIGN.md, Files): mesh, settings, per-op strategy, locks, cost summary.

#include "engine/evaluation/evaluation.h"
#include "engine/plans/plan.h"

#include <nlohmann/json.hpp>

#include <string>

namespace shardscope {

/// Parses a plan for `graph`; strategies are matched to ops by name and factor names. Throws
/// InputError naming the op or field (an op of the model missing from the plan, an unknown factor...).
Plan parsePlanJson(const std::string& text, const std::string& source, const Graph& graph);
/// Reads a parsed plan document, as parsePlanJson.
Plan parsePlanDocument(const nlohmann::json& doc, const std::string& source, const Graph& graph);
/// The plan as a JSON document, with the cost summary of `evaluation` if given.
nlohmann::json planDocument(const Plan& plan, const Graph& graph, const Evaluation* evaluation);
/// planDocument() as the text of a plan file.
std::string planToJson(const Plan& plan, const Graph& graph, const Evaluation* evaluation);
/// One tactic step's figures as the plan file stores them: {step_time_s, analytic_step_time_s,
/// peak_memory_bytes, feasible, collectives_added, conflicts, notes, decided_axes}.
nlohmann::json tacticStepToJson(const TacticStep& step);
/// Writes the plan atomically to `path`.
void savePlan(const std::string& path, const Plan& plan, const Graph& graph, const Evaluation* evaluation);

} // namespace shardscope
