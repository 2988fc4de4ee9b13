#pragma once
// The commands of shardscope-cli; each prints to `out` and returns the exit status.

#include "cli_options.h"

#include "engine/evaluation/evaluation.h"

#include <optional>

#include <ostream>

namespace shardscope::cli {

/// `models`: every model preset with its family and parameters.
int runModels(const CliOptions& options, std::ostream& out);
/// `clusters`: every cluster preset with its figures.
int runClusters(const CliOptions& options, std::ostream& out);
/// `evaluate`: the analytic cost of a baseline or a plan file, as a table or JSON.
int runEvaluate(const CliOptions& options, std::ostream& out);
/// `search`: the best plan found, with evaluate's figures and the search report.
int runSearch(const CliOptions& options, std::ostream& out);
/// `search --tactics`: the plan built tactic by tactic, with each step's figures.
int runTacticSearch(const CliOptions& options, std::ostream& out);
/// `explain`: why an op of a plan splits what it does, axis by axis.
int runExplain(const CliOptions& options, std::ostream& out);
/// `simulate`: the simulated timeline of one step: step time, busy streams, memory peak, traffic.
int runSimulate(const CliOptions& options, std::ostream& out);
/// `bench`: the search benchmarks as a table or JSON.
int runBench(const CliOptions& options, std::ostream& out);
/// `export`: the plan as a framework's configuration (Megatron-LM arguments, DeepSpeed config JSON,
/// torchtitan TOML, a JAX or PyTorch DTensor module), to stdout or --out.
int runExport(const CliOptions& options, std::ostream& out);
/// `import`: an ONNX file as a graph: what was folded, fused and kept opaque; --out writes *.model.json.
int runImport(const CliOptions& options, std::ostream& out);
/// `calibrate`: the cluster fitted to measured runs, each run's prediction before and after.
int runCalibrate(const CliOptions& options, std::ostream& out);
/// `bench --fidelity`: predictions of published runs and activation formulas, predicted / published.
int runFidelity(const CliOptions& options, std::ostream& out);
/// Prints `e`, a plan of `settings`, as evaluate's readable table.
void printEvaluationTable(const Evaluation& e, const Graph& graph, const Cluster& cluster, const StepSettings& settings,
                          std::ostream& out, std::optional<double> simulatedStep = {});

} // namespace shardscope::cli
