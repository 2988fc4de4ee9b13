#include "plan_export_dialog.h"

#include "util/qt_text.h"

#include "engine/io/json_fields.h"
#include "engine/util/error.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {
const QString kFormatKey = QStringLiteral("export/planFormat");
}

PlanExportDialog::PlanExportDialog(Graph graph, Plan plan, std::optional<ExportBatch> batch, const QString& baseName,
                                   QWidget* parent)
    : QDialog(parent), graph_(std::move(graph)), plan_(std::move(plan)), batch_(batch), baseName_(baseName) {
    setWindowTitle(tr("Export Plan As"));
    resize(820, 620);
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    formats_ = new QComboBox(this);
    formats_->setObjectName(QStringLiteral("formatCombo"));
    for (const ExportFormatInfo& f : exportFormats())
        formats_->addItem(q(f.title), q(f.name));
    auto* label = new QLabel(tr("&Format"), this);
    label->setBuddy(formats_);
    top->addWidget(label);
    top->addWidget(formats_, 1);
    layout->addLayout(top);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("exportStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    preview_ = new QPlainTextEdit(this);
    preview_->setObjectName(QStringLiteral("exportPreview"));
    preview_->setReadOnly(true);
    preview_->setLineWrapMode(QPlainTextEdit::NoWrap);
    preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(preview_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    save_ = buttons->addButton(tr("&Save As..."), QDialogButtonBox::ActionRole);
    save_->setObjectName(QStringLiteral("saveButton"));
    copy_ = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy_->setObjectName(QStringLiteral("copyButton"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &PlanExportDialog::reject);
    connect(save_, &QPushButton::clicked, this, &PlanExportDialog::saveAs);
    connect(copy_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text_); });
    connect(formats_, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(kFormatKey, formats_->currentData());
        refresh();
    });
    const auto remembered = parseExportFormat(QSettings().value(kFormatKey).toString().toStdString());
    setFormat(remembered.value_or(ExportFormat::Megatron));
    refresh();
}

void PlanExportDialog::setFormat(ExportFormat format) {
    formats_->setCurrentIndex(std::max(0, formats_->findData(q(exportFormatInfo(format).name))));
}

ExportFormat PlanExportDialog::format() const {
    return parseExportFormat(formats_->currentData().toString().toStdString()).value_or(ExportFormat::Megatron);
}

void PlanExportDialog::refresh() {
    text_.clear();
    refusal_.clear();
    try {
        text_ = q(exportPlan(format(), graph_, plan_, batch_));
    } catch (const InputError& e) {
        refusal_ = q(e.what());
    }
    preview_->setPlainText(text_);
    if (refusal_.isEmpty()) {
        status_->setStyleSheet(QString());
        status_->setText(tr("%1 of plan %2 on %3: %4 lines.")
                             .arg(q(exportFormatInfo(format()).title), q(plan_.name), q(plan_.mesh.toString()))
                             .arg(text_.count(QLatin1Char('\n'))));
    } else {
        status_->setStyleSheet(QStringLiteral("color: #b00020;"));
        status_->setText(tr("Cannot export: %1").arg(refusal_));
    }
    save_->setEnabled(refusal_.isEmpty());
    copy_->setEnabled(refusal_.isEmpty());
}

QString PlanExportDialog::saveTo(const QString& path) const {
    if (!refusal_.isEmpty())
        return refusal_;
    try {
        writeFileAtomically(path.toStdString(), text_.toStdString());
    } catch (const InputError& e) {
        return q(e.what());
    }
    return {};
}

void PlanExportDialog::saveAs() {
    const ExportFormatInfo& info = exportFormatInfo(format());
    const QString suffix = q(info.suffix);
    QString path = QFileDialog::getSaveFileName(this, tr("Save %1").arg(q(info.title)), baseName_ + suffix,
                                                tr("%1 (*%2);;All files (*)").arg(q(info.title), suffix));
    if (path.isEmpty())
        return;
    if (const QString error = saveTo(path); !error.isEmpty())
        QMessageBox::critical(this, tr("Export failed"), error);
    else
        status_->setText(tr("Saved %1").arg(path));
}

} // namespace shardscope::ui
