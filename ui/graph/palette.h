#pragma once
// Colours of the strategy legend: distinct hues, grey for replicated ops.

#include <QColor>
#include <QString>

namespace shardscope::ui {

/// The fill colour of legend entry `index`; light grey when `replicated`.
QColor legendColor(int index, bool replicated);
/// The colour of a timeline span of kind `kind` (timeline_data.h SpanKind).
QColor spanColor(int kind);
/// A short name of span kind `kind`: "fwd", "bwd", "opt", "AR", "AG", "RS", "A2A", "SR".
QString spanKindShortName(int kind);
/// Number of span kinds.
int spanKindCount();
/// A heat colour for `t` in [0, 1]: pale yellow through orange to dark red.
QColor heatColor(double t);
/// A distinct colour for group `index` (mesh axis groups in the cluster view).
QColor groupColor(int index);
/// The colour of pipeline stage `stage`: saturated hues a golden angle apart, so neighbours differ.
QColor stageColor(int stage);

} // namespace shardscope::ui
