#pragma once
// Add or edit one tactic: its kind and the arguments that kind takes.

#include <QDialog>
// Qt first: moc cannot parse <concepts> (reached through the engine headers) unless Qt came before.

#include "engine/cluster/mesh.h"
#include "engine/plans/tactic.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace shardscope::ui {

class TacticDialog final : public QDialog {
    Q_OBJECT
public:
    /// Edits `tactic`; the axis choices come from `mesh`.
    TacticDialog(const Tactic& tactic, const Mesh& mesh, QWidget* parent = nullptr);
    /// The tactic as edited.
    Tactic tactic() const;

    /// Checks the arguments before closing; stays open with a message when something is missing.
    void accept() final;

private:
    void showFieldsFor(TacticKind kind);

    QComboBox* kind_ = nullptr;
    QComboBox* axis_ = nullptr;
    QSpinBox* stage_ = nullptr;
    QSpinBox* dim_ = nullptr;
    QLineEdit* names_ = nullptr;
    QComboBox* algorithm_ = nullptr;
    QLabel* help_ = nullptr;
    QLabel* error_ = nullptr;
    QFormLayout* form_ = nullptr;
};

} // namespace shardscope::ui
