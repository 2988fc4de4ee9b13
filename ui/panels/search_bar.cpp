#include "search_bar.h"

#include "util/qt_text.h"

#include "engine/util/error.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>

namespace shardscope::ui {

namespace {

/// The mesh field's entry for "every candidate mesh" (SearchSettings::mesh nullopt).
QString autoMeshText() { return QStringLiteral("auto"); }

QLabel* caption(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setContentsMargins(8, 0, 3, 0);
    return l;
}

} // namespace

SearchBar::SearchBar(Session* session, QWidget* parent) : QToolBar(tr("Search"), parent), session_(session) {
    setObjectName(QStringLiteral("searchBar"));
    algorithm_ = new QComboBox(this);
    for (SearchAlgorithm a : requestableAlgorithms())
        algorithm_->addItem(q(std::string(algorithmName(a))), int(a));
    algorithm_->setToolTip(tr("auto: TAPAS where layers repeat, else PaSE's exact DP; brute: every assignment (small graphs)"));
    mesh_ = new QComboBox(this);
    mesh_->setObjectName(QStringLiteral("mesh"));
    mesh_->setEditable(true);
    mesh_->setMinimumContentsLength(18);
    meshHelp_ = tr("auto tries every data x model and data x seq x model split and pipelines of whole-node stages; "
                   "or type axes, e.g. data=4,model=2 or pipe=4,data=2,model=8");
    mesh_->setToolTip(meshHelp_);
    batch_ = new QSpinBox(this);
    batch_->setRange(1, 1 << 24);
    batch_->setToolTip(tr("Global batch (sequences per optimizer step)"));
    microbatches_ = new QSpinBox(this);
    microbatches_->setObjectName(QStringLiteral("microbatches"));
    microbatches_->setRange(0, 4096);
    microbatches_->setSpecialValueText(tr("auto"));
    microbatches_->setToolTip(tr("Gradient-accumulation steps per optimizer step; auto lets the search choose"));
    recompute_ = new QComboBox(this);
    recompute_->setObjectName(QStringLiteral("recompute"));
    recompute_->addItems({tr("auto"), QStringLiteral("none"), QStringLiteral("selective"), QStringLiteral("full")});
    recompute_->setToolTip(tr("Activation recomputation; auto lets the search choose"));
    attention_ = new QComboBox(this);
    attention_->setObjectName(QStringLiteral("attention"));
    attention_->addItem(QStringLiteral("fused"), static_cast<int>(AttentionKernel::Fused));
    attention_->addItem(QStringLiteral("unfused"), static_cast<int>(AttentionKernel::Unfused));
    attention_->setToolTip(tr("fused: one FlashAttention kernel, no s x s tensors kept; unfused: matmul, softmax, "
                              "dropout and matmul as separate kernels"));
    precision_ = new QComboBox(this);
    precision_->setObjectName(QStringLiteral("precision"));
    for (const Precision p : {Precision::BF16, Precision::FP8, Precision::MXFP8})
        precision_->addItem(q(std::string(precisionName(p))), static_cast<int>(p));
    precision_->setToolTip(tr("The transformer layers' GEMMs: bf16; fp8 with one scale per tensor (Transformer Engine, "
                              "torchao float8; Hopper and later); mxfp8 with a scale per 32 elements (Blackwell). "
                              "Attention, the embedding and the LM head stay in bf16"));
    overlap_ = new QComboBox(this);
    overlap_->setObjectName(QStringLiteral("overlap"));
    overlap_->addItem(tr("gradients + gathers"), 1);
    overlap_->addItem(tr("+ TP backward"), 2);
    overlap_->addItem(tr("+ TP all"), 3);
    overlap_->addItem(tr("none"), 0);
    overlap_->setToolTip(tr("What runs behind compute: bucketed gradient reduction and prefetched ZeRO-3 gathers "
                            "(DDP, FSDP); also the backward's tensor-parallel collectives beside the weight-gradient "
                            "GEMMs (Megatron's async all-reduce); also the forward's (Megatron-Core --tp-comm-overlap, "
                            "async TP); or nothing"));
    zero_ = new QComboBox(this);
    zero_->setObjectName(QStringLiteral("zero"));
    zero_->addItem(tr("auto"), -1);
    zero_->addItem(QStringLiteral("0"), 0);
    zero_->addItem(QStringLiteral("1"), 1);
    zero_->addItem(QStringLiteral("2"), 2);
    zero_->addItem(QStringLiteral("3"), 3);
    zero_->setToolTip(tr("ZeRO stage over the data axis; auto lets the search choose"));
    schedule_ = new QComboBox(this);
    schedule_->setObjectName(QStringLiteral("schedule"));
    schedule_->addItem(tr("auto"), -1);
    schedule_->addItem(QStringLiteral("1F1B"), 1);
    schedule_->addItem(QStringLiteral("GPipe"), 0);
    for (int v = 2; v <= 4; ++v)
        schedule_->addItem(tr("interleaved x %1").arg(v), 10 + v);
    schedule_->setToolTip(tr("Pipeline schedule on meshes with a pipe axis (pipe=P,...): auto tries 1F1B and "
                             "interleaved with 4, 3 or 2 virtual stages"));
    run_ = new QPushButton(tr("Run search"), this);
    run_->setToolTip(tr("Search for the best plan with these settings (F5)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setToolTip(tr("Stop the search; the plan stays as it was (Esc)"));
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMinimumWidth(260);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("idle"));
    progress_->setValue(0);

    addWidget(caption(tr("Algorithm"), this));
    addWidget(algorithm_);
    addWidget(caption(tr("Mesh"), this));
    addWidget(mesh_);
    addWidget(caption(tr("Batch"), this));
    addWidget(batch_);
    addWidget(caption(tr("Micro-batches"), this));
    addWidget(microbatches_);
    addWidget(caption(tr("Recompute"), this));
    addWidget(recompute_);
    addWidget(caption(tr("Attention"), this));
    addWidget(attention_);
    addWidget(caption(tr("Precision"), this));
    addWidget(precision_);
    addWidget(caption(tr("Overlap"), this));
    addWidget(overlap_);
    addWidget(caption(tr("ZeRO"), this));
    addWidget(zero_);
    addWidget(caption(tr("Schedule"), this));
    addWidget(schedule_);
    addSeparator();
    addWidget(run_);
    addWidget(cancel_);
    addWidget(progress_);

    for (QComboBox* c : {algorithm_, recompute_, attention_, precision_, overlap_, zero_, schedule_})
        connect(c, &QComboBox::currentIndexChanged, this, &SearchBar::push);
    connect(mesh_, &QComboBox::currentTextChanged, this, &SearchBar::push);
    for (QSpinBox* s : {batch_, microbatches_})
        connect(s, &QSpinBox::valueChanged, this, &SearchBar::push);
    connect(run_, &QPushButton::clicked, session_, [this] { session_->search().run(false); });
    connect(cancel_, &QPushButton::clicked, session_, &Session::cancel);
    connect(session_, &Session::problemChanged, this, &SearchBar::onProblemChanged);
    connect(session_, &Session::searchSettingsChanged, this, [this] { setSettings(session_->searchSettings()); });

    JobRunner* jobs = session_->jobs();
    connect(jobs, &JobRunner::started, this, [this](const QString& title) {
        cancel_->setEnabled(true);
        progress_->setValue(0);
        progress_->setFormat(title + QStringLiteral("..."));
    });
    connect(jobs, &JobRunner::progressed, this, [this, jobs](double fraction, const QString& detail, double left) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        QString text = jobs->title() + QStringLiteral(" %p%");
        if (!detail.isEmpty())
            text += QStringLiteral(" - ") + detail;
        if (left >= 0)
            text += tr(" - %1 left").arg(seconds(left));
        progress_->setFormat(text);
    });
    connect(jobs, &JobRunner::finished, this, [this](const QString& title, bool cancelled) {
        cancel_->setEnabled(false);
        progress_->setValue(cancelled ? 0 : 1000);
        progress_->setFormat(cancelled ? tr("%1 cancelled").arg(title) : tr("%1: done").arg(title));
    });
    setSettings(session_->searchSettings());
}

std::variant<SearchSettings, QString> SearchBar::settings() const {
    SearchSettings s;
    s.bucketBytes = session_->searchSettings().bucketBytes; // the timeline panel's setting
    s.algorithm = SearchAlgorithm(algorithm_->currentData().toInt());
    const QString mesh = mesh_->currentText().trimmed();
    if (!mesh.isEmpty() && mesh != autoMeshText()) {
        try {
            s.mesh = Mesh::parse(mesh.toStdString());
        } catch (const InputError& e) {
            return tr("Mesh: %1").arg(q(e.what()));
        }
    }
    const auto problem = session_->state().problem;
    s.batch = problem && problem->globalBatch() && batch_->value() != *problem->globalBatch() ? batch_->value() : 0;
    if (microbatches_->value() > 0)
        s.microbatches = microbatches_->value();
    if (recompute_->currentIndex() > 0)
        s.recompute = static_cast<Recompute>(recompute_->currentIndex() - 1);
    if (zero_->currentData().toInt() >= 0)
        s.zeroStage = zero_->currentData().toInt();
    if (const int code = schedule_->currentData().toInt(); code >= 0)
        s.schedule = code >= 10 ? ScheduleChoice{Schedule::Interleaved, code - 10}
                                : ScheduleChoice{code == 1 ? Schedule::OneFOneB : Schedule::GPipe, 1};
    s.attention = static_cast<AttentionKernel>(attention_->currentData().toInt());
    s.precision = static_cast<Precision>(precision_->currentData().toInt());
    const int overlap = overlap_->currentData().toInt();
    s.overlap = overlap >= 1;
    s.tpOverlap = overlap == 3 ? TpOverlap::Full : overlap == 2 ? TpOverlap::Backward : TpOverlap::Off;
    return s;
}

void SearchBar::setSettings(const SearchSettings& s) {
    updating_ = true;
    algorithm_->setCurrentIndex(std::max(0, algorithm_->findData(int(s.algorithm))));
    mesh_->setCurrentText(s.mesh ? q(s.mesh->toString()) : autoMeshText());
    const auto problem = session_->state().problem;
    if (s.batch > 0)
        batch_->setValue(s.batch);
    else if (problem && problem->globalBatch())
        batch_->setValue(*problem->globalBatch());
    microbatches_->setValue(s.microbatches.value_or(0));
    recompute_->setCurrentIndex(s.recompute ? static_cast<int>(*s.recompute) + 1 : 0);
    zero_->setCurrentIndex(zero_->findData(s.zeroStage.value_or(-1)));
    attention_->setCurrentIndex(attention_->findData(static_cast<int>(s.attention)));
    precision_->setCurrentIndex(precision_->findData(static_cast<int>(s.precision)));
    const int scheduleCode = !s.schedule                                   ? -1
                             : s.schedule->schedule == Schedule::Interleaved ? 10 + s.schedule->virtualStages
                             : s.schedule->schedule == Schedule::OneFOneB    ? 1
                                                                             : 0;
    schedule_->setCurrentIndex(std::max(0, schedule_->findData(scheduleCode)));
    overlap_->setCurrentIndex(overlap_->findData(!s.overlap ? 0 : 1 + static_cast<int>(s.tpOverlap)));
    updating_ = false;
}

void SearchBar::onProblemChanged() {
    const auto problem = session_->state().problem;
    updating_ = true;
    const QString keep = mesh_->currentText();
    mesh_->clear();
    mesh_->addItem(autoMeshText());
    if (problem) {
        const int devices = problem->cluster->deviceCount(), perNode = problem->cluster->devicesPerNode();
        for (const Mesh& m : candidateMeshes(devices, problem->cluster->scaleUpSize()))
            mesh_->addItem(q(m.toString()));
        for (const Mesh& m : expertMeshes(*problem->graph, devices))
            mesh_->addItem(q(m.toString()));
        for (const Mesh& m : pipelinedMeshes(devices, perNode, problem->blocks ? problem->blocks->count() : 0))
            mesh_->addItem(q(m.toString()));
    }
    mesh_->setCurrentText(keep.isEmpty() ? autoMeshText() : keep);
    const bool batchEditable = problem && problem->globalBatch();
    batch_->setEnabled(batchEditable);
    microbatches_->setEnabled(batchEditable);
    batch_->setToolTip(batchEditable ? tr("Global batch (sequences per optimizer step)")
                                     : tr("This model file fixes its own batch"));
    if (batchEditable)
        batch_->setValue(*problem->globalBatch());
    if (!batchEditable)
        microbatches_->setValue(0); // auto: a model file keeps its own count
    updating_ = false;
    push();
}

void SearchBar::push() {
    if (updating_)
        return;
    const auto entered = settings();
    const QString* problem = std::get_if<QString>(&entered);
    session_->setSettingsProblem(problem ? *problem : QString());
    mesh_->setToolTip(problem ? *problem : meshHelp_);
    mesh_->setStyleSheet(problem ? QStringLiteral("QComboBox { color: #b00020; }") : QString());
    if (!problem)
        session_->setSearchSettings(std::get<SearchSettings>(entered));
}

} // namespace shardscope::ui
