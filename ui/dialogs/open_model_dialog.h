#pragma once
// Open a model: a preset with its builder parameters in an editable form, or a file (our
// *.model.json, a Hugging Face config.json, ONNX).

#include "engine/io/model_file.h"

#include <QDialog>

#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace shardscope::ui {

class OpenModelDialog final : public QDialog {
    Q_OBJECT
public:
    /// A dialog starting on the preset `preset` (its parameters filled in).
    explicit OpenModelDialog(const QString& preset, QWidget* parent = nullptr);
    /// What to load: the preset with the parameters changed in the form, or the file.
    ModelRequest request() const;
    /// Chooses a file instead of a preset.
    void setFile(const QString& path);

    /// Checks the parameters before closing; shows what is wrong and stays open if anything is.
    void accept() final;

private:
    void showPreset(const QString& name);

    QRadioButton* presetChoice_ = nullptr;
    QRadioButton* fileChoice_ = nullptr;
    QComboBox* preset_ = nullptr;
    QLabel* description_ = nullptr;
    QFormLayout* params_ = nullptr;
    QLineEdit* path_ = nullptr;
    QLineEdit* fileSets_ = nullptr; ///< "batch=8, seq=2048": an ONNX file's symbolic dimensions, a config's parameters
    QLabel* error_ = nullptr;
    std::vector<std::pair<std::string, QLineEdit*>> fields_;
    std::vector<std::pair<std::string, std::string>> defaults_;
};

} // namespace shardscope::ui
