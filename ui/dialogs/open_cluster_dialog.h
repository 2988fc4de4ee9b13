#pragma once
// Open a cluster: a preset scaled to a number of nodes, or a *.cluster.json file.

#include <QDialog>

#include <optional>
#include <string>

class QComboBox;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace shardscope::ui {

class OpenClusterDialog final : public QDialog {
    Q_OBJECT
public:
    /// A dialog starting on preset `preset` with `nodes` nodes.
    OpenClusterDialog(const QString& preset, int nodes, QWidget* parent = nullptr);
    /// The preset name or file path.
    std::string spec() const;
    /// The node count (presets and files alike).
    std::optional<int> nodes() const;

private:
    QRadioButton* presetChoice_ = nullptr;
    QRadioButton* fileChoice_ = nullptr;
    QComboBox* preset_ = nullptr;
    QSpinBox* nodes_ = nullptr;
    QLineEdit* path_ = nullptr;
};

} // namespace shardscope::ui
