#include "tactic_dialog.h"

#include "util/qt_text.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace shardscope::ui {

namespace {

QString helpFor(TacticKind k) {
    switch (k) {
    case TacticKind::Batch:
        return QObject::tr("Split the batch dimension of the model inputs (all, or those named) over the axis; "
                           "propagation carries it through every op.");
    case TacticKind::Megatron:
        return QObject::tr("Megatron-LM's tensor parallelism over the axis: column then row split in MLPs and "
                           "attention, heads split, vocabulary-parallel embedding and loss.");
    case TacticKind::Sequence:
        return QObject::tr("Sequence parallelism over the axis for the ops still undecided on it (norms, residuals "
                           "between tensor-parallel regions).");
    case TacticKind::Zero:
        return QObject::tr("ZeRO over the axis: stage 1 shards optimizer state, 2 also gradients, 3 also "
                           "parameters.");
    case TacticKind::Expert:
        return QObject::tr("Expert parallelism: the experts' weights and compute split over the axis; tokens "
                           "reach them by all-to-all. Put it before batch on the same axis.");
    case TacticKind::Shard:
        return QObject::tr("Split a dimension of the named tensors (names or patterns such as "
                           "layers.*.mlp.fc1.weight, comma-separated) over the axis.");
    case TacticKind::Auto:
        return QObject::tr("Let the search choose what is still open on the axis (or on every axis), keeping "
                           "every earlier decision.");
    }
    return {};
}

} // namespace

TacticDialog::TacticDialog(const Tactic& tactic, const Mesh& mesh, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Tactic"));
    form_ = new QFormLayout(this);
    kind_ = new QComboBox(this);
    for (std::string_view name : tacticKindNames())
        kind_->addItem(q(name));
    axis_ = new QComboBox(this);
    axis_->addItem(tr("every axis"), QString());
    for (const MeshAxis& a : mesh.axes)
        axis_->addItem(q(a.name), q(a.name));
    stage_ = new QSpinBox(this);
    stage_->setRange(1, 3);
    dim_ = new QSpinBox(this);
    dim_->setRange(0, 16);
    names_ = new QLineEdit(this);
    algorithm_ = new QComboBox(this);
    for (SearchAlgorithm a : requestableAlgorithms())
        algorithm_->addItem(q(std::string(algorithmName(a))), int(a));
    help_ = new QLabel(this);
    help_->setWordWrap(true);
    error_ = new QLabel(this);
    error_->setStyleSheet(QStringLiteral("color: #b00020"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form_->addRow(tr("Tactic"), kind_);
    form_->addRow(tr("Axis"), axis_);
    form_->addRow(tr("ZeRO stage"), stage_);
    form_->addRow(tr("Dimension"), dim_);
    form_->addRow(tr("Tensors"), names_);
    form_->addRow(tr("Algorithm"), algorithm_);
    form_->addRow(help_);
    form_->addRow(error_);
    form_->addRow(buttons);
    connect(kind_, &QComboBox::currentIndexChanged, this,
            [this] { showFieldsFor(*parseTacticKind(kind_->currentText().toStdString())); });
    connect(buttons, &QDialogButtonBox::accepted, this, &TacticDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &TacticDialog::reject);

    kind_->setCurrentText(q(tacticKindName(tactic.kind)));
    axis_->setCurrentIndex(std::max(0, axis_->findData(q(tactic.axis))));
    if (tactic.axis.empty() && tactic.kind != TacticKind::Auto && mesh.rank() > 0)
        axis_->setCurrentIndex(1);
    stage_->setValue(std::max(1, tactic.stage));
    dim_->setValue(tactic.dim);
    QStringList names;
    for (const std::string& n : tactic.kind == TacticKind::Shard ? tactic.tensors : tactic.inputs)
        names << q(n);
    names_->setText(names.join(QStringLiteral(", ")));
    algorithm_->setCurrentIndex(std::max(0, algorithm_->findData(int(tactic.algorithm))));
    showFieldsFor(tactic.kind);
}

void TacticDialog::showFieldsFor(TacticKind kind) {
    form_->setRowVisible(stage_, kind == TacticKind::Zero);
    form_->setRowVisible(dim_, kind == TacticKind::Shard);
    form_->setRowVisible(names_, kind == TacticKind::Shard || kind == TacticKind::Batch);
    form_->setRowVisible(algorithm_, kind == TacticKind::Auto);
    names_->setPlaceholderText(kind == TacticKind::Batch ? tr("every model input") : tr("layers.*.mlp.fc1.weight"));
    help_->setText(helpFor(kind));
    error_->clear();
}

Tactic TacticDialog::tactic() const {
    Tactic t;
    t.kind = *parseTacticKind(kind_->currentText().toStdString());
    t.axis = axis_->currentData().toString().toStdString();
    t.stage = t.kind == TacticKind::Zero ? stage_->value() : 0;
    t.dim = t.kind == TacticKind::Shard ? dim_->value() : 0;
    if (t.kind == TacticKind::Auto)
        t.algorithm = SearchAlgorithm(algorithm_->currentData().toInt());
    std::vector<std::string> names;
    for (const QString& n : names_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!n.trimmed().isEmpty())
            names.push_back(n.trimmed().toStdString());
    if (t.kind == TacticKind::Shard)
        t.tensors = names;
    if (t.kind == TacticKind::Batch)
        t.inputs = names;
    return t;
}

void TacticDialog::accept() {
    const Tactic t = tactic();
    if (t.axis.empty() && t.kind != TacticKind::Auto) {
        error_->setText(tr("Choose the mesh axis this tactic acts on."));
        return;
    }
    if (t.kind == TacticKind::Shard && t.tensors.empty()) {
        error_->setText(tr("Name the tensors to shard."));
        return;
    }
    QDialog::accept();
}

} // namespace shardscope::ui
