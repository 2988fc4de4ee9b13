#pragma once
// The pipeline's stages: one row per stage (its blocks, time per micro-batch split into forward,
// backward, communication and sends, per-step work, micro-batches in flight, peak memory), the
// schedule's bubble above, and the switch that locks the stage cut for the next searches.

#include "session/session.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QTableWidget;

namespace shardscope::ui {

class StagesPanel final : public QWidget {
    Q_OBJECT
public:
    /// The stages of `session`'s plan.
    explicit StagesPanel(Session* session, QWidget* parent = nullptr);

private:
    void refresh();

    Session* session_;
    QLabel* summary_ = nullptr;
    QCheckBox* lockCut_ = nullptr;
    QTableWidget* table_ = nullptr;
};

} // namespace shardscope::ui
