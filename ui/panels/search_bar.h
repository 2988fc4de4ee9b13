#pragma once
// The search bar: algorithm, mesh (auto or axes), global batch, micro-batches, recomputation and
// ZeRO; Run and Cancel; a progress bar with the best step time so far and the time left.

#include "session/session.h"

#include <QToolBar>

#include <variant>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace shardscope::ui {

class SearchBar final : public QToolBar {
    Q_OBJECT
public:
    /// A bar driving `session`'s searches.
    explicit SearchBar(Session* session, QWidget* parent = nullptr);
    /// The settings as the widgets show them, or what is wrong with them (a mesh that does not parse).
    std::variant<SearchSettings, QString> settings() const;
    /// Shows `settings` in the widgets.
    void setSettings(const SearchSettings& settings);

private:
    void onProblemChanged();
    void push();

    Session* session_;
    QComboBox* algorithm_ = nullptr;
    QComboBox* mesh_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QSpinBox* microbatches_ = nullptr;
    QComboBox* recompute_ = nullptr;
    QComboBox* attention_ = nullptr;
    QComboBox* precision_ = nullptr;
    QComboBox* overlap_ = nullptr;
    QComboBox* zero_ = nullptr;
    QComboBox* schedule_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QString meshHelp_;
    bool updating_ = false;
};

} // namespace shardscope::ui
