#include "open_cluster_dialog.h"

#include "util/qt_text.h"

#include "engine/cluster/cluster_presets.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>

namespace shardscope::ui {

OpenClusterDialog::OpenClusterDialog(const QString& preset, int nodes, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open Cluster"));
    auto* form = new QFormLayout(this);
    presetChoice_ = new QRadioButton(tr("Built-in cluster"), this);
    presetChoice_->setChecked(true);
    preset_ = new QComboBox(this);
    for (const ClusterPresetInfo& p : clusterPresets())
        preset_->addItem(q(p.name + " - " + p.description), q(p.name));
    preset_->setCurrentIndex(std::max(0, preset_->findData(preset)));
    nodes_ = new QSpinBox(this);
    nodes_->setRange(1, 65536);
    nodes_->setValue(nodes);
    fileChoice_ = new QRadioButton(tr("Cluster file (*.cluster.json)"), this);
    path_ = new QLineEdit(this);
    auto* browse = new QPushButton(tr("Browse..."), this);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(browse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    form->addRow(presetChoice_);
    form->addRow(tr("Preset"), preset_);
    form->addRow(tr("Nodes"), nodes_);
    form->addRow(fileChoice_);
    form->addRow(fileRow);
    form->addRow(buttons);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open Cluster File"), QString(),
                                                          tr("Clusters (*.cluster.json *.json);;All files (*)"));
        if (!file.isEmpty()) {
            path_->setText(file);
            fileChoice_->setChecked(true);
        }
    });
    connect(path_, &QLineEdit::textEdited, this, [this] { fileChoice_->setChecked(true); });
    connect(buttons, &QDialogButtonBox::accepted, this, &OpenClusterDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &OpenClusterDialog::reject);
}

std::string OpenClusterDialog::spec() const {
    return fileChoice_->isChecked() ? path_->text().trimmed().toStdString() : preset_->currentData().toString().toStdString();
}

std::optional<int> OpenClusterDialog::nodes() const { return nodes_->value(); }

} // namespace shardscope::ui
