#pragma once
// Colours of the strategy legend: distinct hues, grey for replicated ops.

#include <QColor>

namespace shardscope::ui {

/// The fill colour of legend entry `index`; light grey when `replicated`.
QColor legendColor(int index, bool replicated);

} // namespace shardscope::ui
