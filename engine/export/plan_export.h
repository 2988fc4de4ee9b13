#pragma once
// The plan exporters by format: their names, file suffixes and what they need, and one entry point the
// CLI's export command and the window's Export Plan dialog share.

#include "engine/ir/graph.h"
#include "engine/plans/plan.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class ExportFormat { Megatron, Deepspeed, Torchtitan, Jax, Dtensor };

/// What a format is called and written as.
struct ExportFormatInfo {
    ExportFormat format;
    std::string name;       ///< the --format value: "megatron"
    std::string title;      ///< "Megatron-LM arguments"
    std::string suffix;     ///< the usual file name ending: ".megatron.sh"
    bool needsBatch;        ///< needs the step's global batch (and sequence length)
};

/// Every format, in the order menus list them.
const std::vector<ExportFormatInfo>& exportFormats();
/// The format called `name`; nullopt if unknown.
std::optional<ExportFormat> parseExportFormat(std::string_view name);
/// The description of `format`.
const ExportFormatInfo& exportFormatInfo(ExportFormat format);

/// The step's batch as the frameworks count it.
struct ExportBatch {
    int globalBatch = 0; ///< sequences (samples) per step
    int seqLen = 0;      ///< tokens per sequence
};

/// `plan` on `graph` in `format`. `batch` is needed by the formats that say so (nullopt: refused with
/// the reason). Throws InputError naming what the format cannot express.
std::string exportPlan(ExportFormat format, const Graph& graph, const Plan& plan, std::optional<ExportBatch> batch);

} // namespace shardscope
