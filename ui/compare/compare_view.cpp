#include "compare_view.h"

#include "compare_model.h"
#include "util/qt_text.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace shardscope::ui {

namespace {

QChart* makeChart(const QString& title) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(2, 2, 2, 2));
    return chart;
}

/// A unit for `most` seconds: (divisor, name).
std::pair<double, QString> timeUnit(double most) {
    if (most >= 1)
        return {1, QStringLiteral("s")};
    if (most >= 1e-3)
        return {1e-3, QStringLiteral("ms")};
    return {1e-6, QStringLiteral("us")};
}

} // namespace

CompareView::CompareView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), jobs_(QThreadPool::globalInstance()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    status_ = new QLabel(this);
    auto* open = new QPushButton(tr("Open as current plan"), this);
    open->setToolTip(tr("Make the selected row the current plan (undoable; double-click a row does the same)"));
    bar->addWidget(status_, 1);
    bar->addWidget(open);
    model_ = new CompareModel(this);
    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(CompareModel::SortRole);
    table_ = new QTableView(this);
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    timeChart_ = makeChart(tr("Step time (simulated)"));
    memoryChart_ = makeChart(tr("Peak memory per device"));
    auto* charts = new QSplitter(Qt::Horizontal, this);
    for (QChart* c : {timeChart_, memoryChart_}) {
        auto* view = new QChartView(c, charts);
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumHeight(180);
        charts->addWidget(view);
    }
    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(bar);
    topLayout->addWidget(table_);
    split->addWidget(top);
    split->addWidget(charts);
    split->setSizes({300, 600});
    layout->addWidget(split, 1);

    connect(open, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            openRow(rows.front().row());
    });
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { openRow(index.row()); });
    connect(session_, &Session::simulationChanged, this, &CompareView::refresh);
    connect(session_, &Session::tacticRunChanged, this, &CompareView::refresh);
    connect(&jobs_, &JobRunner::failed, this,
            [this](const QString&, const QString& error) { status_->setText(tr("Could not compare: %1").arg(error)); });
}

void CompareView::setActive(bool active) {
    active_ = active;
    if (active_ && stale_)
        refresh();
}

void CompareView::refresh() {
    stale_ = !active_ || !session_->simulation().result();
    if (stale_ || !session_->loaded())
        return;
    const PlanState current = session_->state();
    const PlanState searched = session_->search().searchedState();
    const std::string searchName =
        session_->search().last() ? "searched (" + session_->search().last()->report.chosenBy() + ")" : std::string("searched");
    const SimOptions options = session_->simulation().options();
    const auto tactics = session_->tactics().lastRun();
    status_->setText(tr("Comparing..."));
    jobs_.start<std::vector<ComparedPlan>>(
        tr("Comparing plans"),
        [current, searched, searchName, tactics, options](const JobContext&) {
            return comparePlans(current, searched, searchName, tactics.get(), options);
        },
        [this](const std::vector<ComparedPlan>& rows) {
            model_->setRows(rows);
            showRows();
        });
}

void CompareView::showRows() {
    const auto& rows = model_->rows();
    status_->setText(tr("%1 plans on %2, simulated with overlap %3")
                         .arg(rows.size())
                         .arg(q(session_->state().plan.mesh.toString()),
                              session_->simulation().options().overlap ? tr("on") : tr("off")));
    for (QChart* c : {timeChart_, memoryChart_}) {
        c->removeAllSeries();
        for (QAbstractAxis* a : c->axes())
            c->removeAxis(a);
    }
    QStringList names;
    double slowest = 0, capacity = 0;
    for (const ComparedPlan& r : rows) {
        names << q(r.name);
        slowest = std::max(slowest, r.stepTime);
        capacity = r.capacity;
    }
    const auto [unit, unitName] = timeUnit(slowest);
    auto* compute = new QBarSet(tr("compute"));
    auto* comm = new QBarSet(tr("exposed communication"));
    auto* optimizer = new QBarSet(tr("optimizer"));
    auto* bubble = new QBarSet(tr("pipeline bubble"));
    bubble->setColor(QColor(0xc8ccd6));
    compute->setColor(QColor(0x5b8ff9));
    comm->setColor(QColor(0xe8684a));
    optimizer->setColor(QColor(0xf6bd16));
    auto* fits = new QBarSet(tr("fits"));
    auto* overflows = new QBarSet(tr("does not fit"));
    fits->setColor(QColor(0x4fc3a1));
    overflows->setColor(QColor(0xb00020));
    for (const ComparedPlan& r : rows) {
        *compute << r.compute / unit;
        *comm << r.exposedComm / unit;
        *optimizer << r.optimizer / unit;
        *bubble << r.bubble / unit;
        *fits << (r.feasible ? r.peakMemory / 1e9 : 0);
        *overflows << (r.feasible ? 0 : r.peakMemory / 1e9);
    }
    auto* stacked = new QHorizontalStackedBarSeries;
    stacked->append({compute, comm, optimizer, bubble});
    auto* memory = new QHorizontalStackedBarSeries;
    memory->append({fits, overflows});
    timeChart_->addSeries(stacked);
    memoryChart_->addSeries(memory);
    for (auto [chart, series, title] : {std::tuple<QChart*, QAbstractBarSeries*, QString>{timeChart_, stacked, unitName},
                                        {memoryChart_, memory, tr("GB (capacity %1)").arg(bytes(capacity))}}) {
        auto* categories = new QBarCategoryAxis;
        categories->append(names);
        auto* values = new QValueAxis;
        values->setTitleText(title);
        values->setLabelFormat(QStringLiteral("%.3g"));
        chart->addAxis(categories, Qt::AlignLeft);
        chart->addAxis(values, Qt::AlignBottom);
        series->attachAxis(categories);
        series->attachAxis(values);
    }
}

void CompareView::openRow(int row) {
    if (row < 0 || row >= sorted_->rowCount())
        return;
    const int source = sorted_->mapToSource(sorted_->index(row, 0)).row();
    const ComparedPlan& r = model_->rows()[static_cast<std::size_t>(source)];
    session_->usePlan(r.state, tr("Open %1 from the comparison").arg(q(r.name)));
}

} // namespace shardscope::ui
