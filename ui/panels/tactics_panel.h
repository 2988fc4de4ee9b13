#pragma once
// The tactics panel (PartIR): the ordered tactic script — add, edit, remove, reorder — and, once
// applied, each step's step time, peak memory, added collectives and conflicts. Selecting a step
// shows that partial plan in every view.

#include "session/session.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace shardscope::ui {

class TacticsModel;

class TacticsPanel final : public QWidget {
    Q_OBJECT
public:
    /// The panel over `session`'s tactic script.
    explicit TacticsPanel(Session* session, QWidget* parent = nullptr);
    /// The table's model (for tests).
    TacticsModel* model() const { return model_; }
    /// Opens the editor for a new tactic and appends it.
    void addTactic();
    /// Opens the editor on the selected tactic.
    void editTactic();
    /// Removes the selected tactic.
    void removeTactic();
    /// Moves the selected tactic up (-1) or down (+1).
    void moveTactic(int by);

private:
    int selectedRow() const;
    void refresh();
    void showDetails();

    Session* session_;
    TacticsModel* model_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* details_ = nullptr;
    QPushButton* run_ = nullptr;
};

} // namespace shardscope::ui
