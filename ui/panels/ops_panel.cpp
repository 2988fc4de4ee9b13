#include "ops_panel.h"

#include "models/ops_model.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace shardscope::ui {

OpsPanel::OpsPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter ops by name, kind, block or strategy"));
    filter_->setClearButtonEnabled(true);
    model_ = new OpsModel(this);
    filtered_ = new QSortFilterProxyModel(this);
    filtered_->setSourceModel(model_);
    filtered_->setSortRole(OpsModel::SortRole);
    filtered_->setFilterKeyColumn(-1);
    filtered_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_ = new QTableView(this);
    table_->setModel(filtered_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // topological order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->resizeSection(OpsModel::Name, 260);
    table_->horizontalHeader()->resizeSection(OpsModel::Block, 120);
    table_->horizontalHeader()->resizeSection(OpsModel::Strategy, 220);
    table_->setWordWrap(false);
    layout->addWidget(filter_);
    layout->addWidget(table_, 1);

    connect(filter_, &QLineEdit::textChanged, filtered_, &QSortFilterProxyModel::setFilterFixedString);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (selecting_ || !current.isValid())
            return;
        selecting_ = true;
        session_->selectOp(OpId(filtered_->data(current, OpsModel::OpIdRole).toInt()));
        selecting_ = false;
    });
    connect(session_, &Session::planChanged, this, [this] {
        model_->setState(session_->state());
        followSelection();
    });
    connect(session_, &Session::selectionChanged, this, &OpsPanel::followSelection);
}

void OpsPanel::followSelection() {
    if (selecting_)
        return;
    const auto op = session_->selectedOp();
    const int row = op ? model_->rowOf(*op) : -1;
    selecting_ = true;
    if (row < 0) {
        table_->selectionModel()->clearSelection();
    } else {
        const QModelIndex index = filtered_->mapFromSource(model_->index(row, 0));
        if (index.isValid()) {
            table_->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            table_->scrollTo(index);
        }
    }
    selecting_ = false;
}

} // namespace shardscope::ui
