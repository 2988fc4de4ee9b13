#pragma once
// File > Export Plan As...: the current plan in a framework's format (Megatron-LM, torchtitan,
// DeepSpeed, JAX, PyTorch DTensor) with a live preview; a plan the framework cannot express shows
// the exporter's reason instead, and cannot be saved in that format.

#include "engine/export/plan_export.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace shardscope::ui {

class PlanExportDialog final : public QDialog {
    Q_OBJECT
public:
    /// A dialog for `plan` on `graph` (copies: the plan it shows stays fixed), with the step's `batch`
    /// when the model fixes one; `baseName` starts the file name.
    PlanExportDialog(Graph graph, Plan plan, std::optional<ExportBatch> batch, const QString& baseName,
                     QWidget* parent = nullptr);
    /// Shows format `format` (the preview or the reason it is refused).
    void setFormat(ExportFormat format);
    /// The format shown.
    ExportFormat format() const;
    /// The exported text of the shown format, or empty when refused.
    QString text() const { return text_; }
    /// Why the shown format is refused, or empty.
    QString refusal() const { return refusal_; }
    /// Writes the text atomically to `path`; returns an error message or an empty string.
    QString saveTo(const QString& path) const;

private:
    void refresh();
    void saveAs();

    const Graph graph_;
    const Plan plan_;
    std::optional<ExportBatch> batch_;
    QString baseName_;
    QString text_;
    QString refusal_;
    QComboBox* formats_ = nullptr;
    QPlainTextEdit* preview_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* save_ = nullptr;
    QPushButton* copy_ = nullptr;
};

} // namespace shardscope::ui
