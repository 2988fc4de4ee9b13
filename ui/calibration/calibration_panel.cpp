#include "calibration_panel.h"

#include "util/qt_text.h"

#include "engine/io/cluster_file.h"
#include "engine/io/json_fields.h"
#include "engine/io/measurements_file.h"
#include "engine/util/error.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QComboBox>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

QString percentError(double predicted, double measured) {
    return QStringLiteral("%1%2%").arg(predicted >= measured ? QStringLiteral("+") : QString()).arg(
        100 * (predicted / measured - 1), 0, 'f', 1);
}

QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    return t;
}

void setCell(QTableWidget* t, int row, int column, const QString& text) {
    auto* item = new QTableWidgetItem(text);
    if (column > 0)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    t->setItem(row, column, item);
}

} // namespace

CalibrationPanel::CalibrationPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), jobs_(QThreadPool::globalInstance()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    auto* load = new QPushButton(tr("Load measurements..."), this);
    load->setToolTip(tr("A shardscope-measurements file: each run's model, mesh, plan, batch and measured step time"));
    fit_ = new QPushButton(tr("Fit"), this);
    fit_->setToolTip(tr("Fit the current cluster's GEMM, attention and HBM efficiency and each link level's "
                        "achieved bandwidth and latencies to the runs (least squares on log step times)"));
    scope_ = new QComboBox(this);
    scope_->setObjectName(QStringLiteral("calibrationScope"));
    scope_->addItem(tr("device and links"), QString());
    scope_->addItem(tr("device only"), QStringLiteral("device"));
    scope_->addItem(tr("links only"), QStringLiteral("links"));
    scope_->setToolTip(tr("Which parameters the fit moves; the others keep the current cluster's values "
                          "(the presets' links are NCCL's measurements)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    apply_ = new QPushButton(tr("Apply fitted cluster..."), this);
    apply_->setToolTip(tr("Save the fitted cluster as a cluster file and open it"));
    status_ = new QLabel(tr("Load measured runs to fit the cluster to them"), this);
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    bar->addWidget(load);
    bar->addWidget(fit_);
    bar->addWidget(scope_);
    bar->addWidget(cancel_);
    bar->addWidget(apply_);
    bar->addWidget(status_, 1);
    layout->addLayout(bar);

    runsTable_ = makeTable({tr("run"), tr("measured"), tr("start cluster"), tr("error"), tr("fitted"), tr("error")}, this);
    parameters_ = makeTable({tr("parameter"), tr("start"), tr("fitted")}, this);
    chart_ = new QChart;
    chart_->setTitle(tr("Predicted against measured step time"));
    chart_->setAnimationOptions(QChart::NoAnimation);
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->setMargins(QMargins(2, 2, 2, 2));
    auto* view = new QChartView(chart_, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(260, 200);
    auto* tables = new QSplitter(Qt::Vertical, this);
    tables->addWidget(runsTable_);
    tables->addWidget(parameters_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(tables);
    split->addWidget(view);
    split->setSizes({600, 500}); // proportions: the tables, then the scatter
    layout->addWidget(split, 1);

    connect(load, &QPushButton::clicked, this, &CalibrationPanel::chooseFile);
    connect(fit_, &QPushButton::clicked, this, &CalibrationPanel::fit);
    connect(cancel_, &QPushButton::clicked, this, &CalibrationPanel::cancel);
    connect(apply_, &QPushButton::clicked, this, &CalibrationPanel::chooseTarget);
    connect(&jobs_, &JobRunner::progressed, this, [this](double, const QString& detail, double) {
        status_->setText(tr("Fitting: %1").arg(detail));
    });
    connect(&jobs_, &JobRunner::failed, this, [this](const QString&, const QString& message) {
        status_->setText(tr("Fit failed"));
        emit failed(message);
    });
    connect(&jobs_, &JobRunner::finished, this, &CalibrationPanel::updateButtons);
    connect(session_, &Session::problemChanged, this, &CalibrationPanel::updateButtons);
    showRuns();
    showChart();
    updateButtons();
}

bool CalibrationPanel::loadMeasurements(const QString& path) {
    const std::string cluster = session_->loaded() ? session_->state().problem->clusterSpec : std::string("dgx-a100");
    try {
        runs_ = shardscope::loadMeasurements(path.toStdString(), cluster);
    } catch (const InputError& e) {
        emit failed(q(e.what()));
        return false;
    }
    path_ = path;
    jobs_.cancel();
    result_.reset();
    status_->setText(tr("%1 runs from %2").arg(runs_.size()).arg(path));
    showRuns();
    showChart();
    updateButtons();
    return true;
}

void CalibrationPanel::fit() {
    if (runs_.empty() || !session_->loaded())
        return;
    const Cluster start = *session_->state().problem->cluster;
    const std::vector<MeasuredRun> runs = runs_;
    const QString scope = scope_->currentData().toString();
    const std::vector<std::string> only = scope.isEmpty() ? std::vector<std::string>{} : std::vector{scope.toStdString()};
    jobs_.start<Calibration>(
        tr("Calibrating"),
        [start, runs, only](const JobContext& job) {
            return calibrate(start, runs, only, job.stop, [&job](int iteration, double cost) {
                // Levenberg-Marquardt stops within 60 iterations.
                job.progress(std::min(1.0, iteration / 60.0),
                             QStringLiteral("iteration %1, cost %2").arg(iteration).arg(cost, 0, 'g', 3));
            });
        },
        [this](const Calibration& c) {
            result_ = c;
            status_->setText(tr("%1 after %2 iterations").arg(c.cancelled ? tr("Stopped") : tr("Fitted")).arg(c.iterations));
            showRuns();
            showChart();
            updateButtons();
        });
    status_->setText(tr("Fitting %1 runs...").arg(runs_.size()));
    updateButtons();
}

void CalibrationPanel::cancel() {
    jobs_.cancel();
    status_->setText(tr("Fit cancelled"));
    updateButtons();
}

QString CalibrationPanel::applyTo(const QString& path) {
    if (!result_)
        return tr("Fit the cluster before applying it");
    try {
        writeFileAtomically(path.toStdString(), clusterToJson(result_->cluster));
    } catch (const InputError& e) {
        return q(e.what());
    }
    const std::optional<int> nodes = session_->loaded() ? session_->state().problem->nodes : std::nullopt;
    session_->loads().openCluster(path.toStdString(), nodes);
    status_->setText(tr("Applied: %1").arg(path));
    return {};
}

void CalibrationPanel::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load measurements"), path_,
                                                      tr("Measurements (*.measurements.json *.json)"));
    if (!path.isEmpty())
        loadMeasurements(path);
}

void CalibrationPanel::chooseTarget() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save fitted cluster"), QStringLiteral("fitted.cluster.json"),
                                                      tr("Cluster files (*.cluster.json)"));
    if (path.isEmpty())
        return;
    if (const QString error = applyTo(path); !error.isEmpty())
        emit failed(error);
}

void CalibrationPanel::showRuns() {
    runsTable_->setRowCount(int(runs_.size()));
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const int row = int(i);
        const double measured = runs_[i].measured;
        setCell(runsTable_, row, 0, q(runs_[i].name));
        setCell(runsTable_, row, 1, seconds(measured));
        for (int column = 2; column < 6; ++column)
            setCell(runsTable_, row, column, QString());
        if (result_) {
            setCell(runsTable_, row, 2, seconds(result_->before[i]));
            setCell(runsTable_, row, 3, percentError(result_->before[i], measured));
            setCell(runsTable_, row, 4, seconds(result_->after[i]));
            setCell(runsTable_, row, 5, percentError(result_->after[i], measured));
        }
    }
    parameters_->setRowCount(result_ ? int(result_->parameters.size()) : 0);
    if (result_)
        for (std::size_t i = 0; i < result_->parameters.size(); ++i) {
            const CalibratedParameter& p = result_->parameters[i];
            setCell(parameters_, int(i), 0, q(p.name));
            setCell(parameters_, int(i), 1, QString::number(p.initial, 'g', 4));
            setCell(parameters_, int(i), 2, QString::number(p.fitted, 'g', 4));
        }
}

void CalibrationPanel::showChart() {
    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes())
        chart_->removeAxis(axis);
    if (!result_ || runs_.empty())
        return;
    double lo = runs_.front().measured, hi = lo;
    auto* before = new QScatterSeries;
    before->setName(tr("start cluster"));
    before->setColor(QColor(0x9e, 0x9e, 0x9e));
    auto* after = new QScatterSeries;
    after->setName(tr("fitted"));
    after->setColor(QColor(0x1f, 0x5f, 0xb4));
    for (QScatterSeries* s : {before, after})
        s->setMarkerSize(9);
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const double m = runs_[i].measured;
        before->append(m, result_->before[i]);
        after->append(m, result_->after[i]);
        lo = std::min({lo, m, result_->before[i], result_->after[i]});
        hi = std::max({hi, m, result_->before[i], result_->after[i]});
    }
    lo /= 1.25;
    hi *= 1.25;
    auto* diagonal = new QLineSeries;
    diagonal->setName(tr("predicted = measured"));
    diagonal->append(lo, lo);
    diagonal->append(hi, hi);
    diagonal->setColor(QColor(0x60, 0x60, 0x60));
    auto* x = new QLogValueAxis;
    auto* y = new QLogValueAxis;
    x->setTitleText(tr("measured (s)"));
    y->setTitleText(tr("predicted (s)"));
    for (QLogValueAxis* axis : {x, y}) {
        axis->setRange(lo, hi);
        axis->setLabelFormat(QStringLiteral("%.3g"));
        axis->setMinorTickCount(-1);
    }
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{diagonal, before, after}) {
        chart_->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

void CalibrationPanel::updateButtons() {
    fit_->setEnabled(!runs_.empty() && session_->loaded() && !jobs_.busy());
    cancel_->setEnabled(jobs_.busy());
    apply_->setEnabled(result_.has_value() && !jobs_.busy());
}

} // namespace shardscope::ui
