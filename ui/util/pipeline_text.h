#pragma once
// The window's words for a pipelined evaluation (engine/pipeline/pipeline_report.h): a one-line
// summary for the status bar and a stage table for its tooltip.

#include "engine/pipeline/pipeline_report.h"

#include <QString>

namespace shardscope::ui {

/// "8 stages, interleaved x 3, 64 micro-batches, bubble 3.5%"; empty without pipelining.
QString pipelineSummary(const PipelineReport& p);

/// One line per stage: time per micro-batch (forward, backward, communication, sends), peak memory
/// with its micro-batches in flight; the slowest stage marked. Empty without pipelining.
QString stageTable(const PipelineReport& p);

} // namespace shardscope::ui
