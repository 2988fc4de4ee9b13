#include "open_model_dialog.h"

#include "util/qt_text.h"

#include "engine/builders/builders.h"
#include "engine/util/error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace shardscope::ui {

OpenModelDialog::OpenModelDialog(const QString& preset, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open Model"));
    auto* layout = new QVBoxLayout(this);
    presetChoice_ = new QRadioButton(tr("Built-in model"), this);
    presetChoice_->setChecked(true);
    preset_ = new QComboBox(this);
    for (const ModelPreset& p : modelPresets())
        preset_->addItem(q(p.name));
    description_ = new QLabel(this);
    description_->setWordWrap(true);
    auto* paramsBox = new QWidget(this);
    params_ = new QFormLayout(paramsBox);
    fileChoice_ = new QRadioButton(tr("Model file: *.model.json, a Hugging Face config.json, or ONNX"), this);
    path_ = new QLineEdit(this);
    auto* browse = new QPushButton(tr("Browse..."), this);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(browse);
    fileSets_ = new QLineEdit(this);
    fileSets_->setObjectName(QStringLiteral("fileSets"));
    fileSets_->setPlaceholderText(tr("Settings: batch=8, seq=2048 (an ONNX file's symbolic dimensions; a config's parameters)"));
    connect(fileSets_, &QLineEdit::textEdited, this, [this] { fileChoice_->setChecked(true); });
    error_ = new QLabel(this);
    error_->setStyleSheet(QStringLiteral("color: #b00020"));
    error_->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);

    layout->addWidget(presetChoice_);
    layout->addWidget(preset_);
    layout->addWidget(description_);
    layout->addWidget(paramsBox);
    layout->addWidget(fileChoice_);
    layout->addLayout(fileRow);
    layout->addWidget(fileSets_);
    layout->addWidget(error_);
    layout->addWidget(buttons);

    connect(preset_, &QComboBox::currentTextChanged, this, &OpenModelDialog::showPreset);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(
            this, tr("Open Model File"), QString(),
            tr("Models (*.model.json config.json *.json *.onnx);;All files (*)"));
        if (!file.isEmpty())
            setFile(file);
    });
    connect(path_, &QLineEdit::textEdited, this, [this] { fileChoice_->setChecked(true); });
    connect(buttons, &QDialogButtonBox::accepted, this, &OpenModelDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &OpenModelDialog::reject);
    const int index = preset_->findText(preset);
    preset_->setCurrentIndex(index >= 0 ? index : 0);
    showPreset(preset_->currentText());
}

void OpenModelDialog::showPreset(const QString& name) {
    while (params_->rowCount() > 0)
        params_->removeRow(0);
    fields_.clear();
    defaults_.clear();
    try {
        const ModelPreset& p = modelPreset(name.toStdString());
        description_->setText(q(p.family + ": " + p.description));
        defaults_ = p.params.items();
        for (const auto& [key, value] : defaults_) {
            auto* edit = new QLineEdit(q(value));
            connect(edit, &QLineEdit::textEdited, this, [this] { presetChoice_->setChecked(true); });
            params_->addRow(q(key), edit);
            fields_.emplace_back(key, edit);
        }
    } catch (const InputError& e) {
        description_->setText(q(e.what()));
    }
}

void OpenModelDialog::setFile(const QString& path) {
    path_->setText(path);
    fileChoice_->setChecked(true);
}

ModelRequest OpenModelDialog::request() const {
    ModelRequest r;
    if (fileChoice_->isChecked()) {
        r.spec = path_->text().trimmed().toStdString();
        for (const QString& a : fileSets_->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
            r.sets.push_back(a.toStdString());
        return r;
    }
    r.spec = preset_->currentText().toStdString();
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const std::string value = fields_[i].second->text().trimmed().toStdString();
        if (value != defaults_[i].second)
            r.sets.push_back(fields_[i].first + "=" + value);
    }
    return r;
}

void OpenModelDialog::accept() {
    const ModelRequest r = request();
    if (r.spec.empty()) {
        error_->setText(tr("Choose a file, or a built-in model."));
        return;
    }
    try {
        resolveBuilder(r);
    } catch (const InputError& e) {
        error_->setText(q(e.what()));
        return;
    }
    QDialog::accept();
}

} // namespace shardscope::ui
