#pragma once
// The timeline with its controls: overlap on or off, gradient bucket size, fit, and the colour key.

#include "session/session.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace shardscope::ui {

class TimelineView;

class TimelinePanel final : public QWidget {
    Q_OBJECT
public:
    /// The panel over `session`'s simulation.
    explicit TimelinePanel(Session* session, QWidget* parent = nullptr);
    /// The timeline itself.
    TimelineView* view() const { return view_; }

private:
    void showSummary();

    Session* session_;
    TimelineView* view_ = nullptr;
    QCheckBox* overlap_ = nullptr;
    QSpinBox* bucket_ = nullptr;
    QLabel* summary_ = nullptr;
};

} // namespace shardscope::ui
