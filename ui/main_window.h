#pragma once
// The main window: the graph in the middle, the inspector and the op list in docks, the search bar
// on top, the plan's step time, peak memory and feasibility in the status bar. Panels wire
// themselves to the session; the window holds menus, dialogs, files and settings.

#include "engine/io/scenario.h"
#include "recent_files.h"
#include "session/autosave.h"
#include "session/session.h"

#include <QMainWindow>

class QDockWidget;
class QLabel;
class QMenu;

namespace shardscope::ui {

class ClusterView;
class CompareView;
class GraphView;
class InspectorPanel;
class OpsPanel;
class StagesPanel;
class SearchBar;
class TacticsPanel;
class CalibrationPanel;
class TimelinePanel;

class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    /// The window with its panels; `searchThreads` as Session takes it. Restores the saved layout.
    explicit MainWindow(QWidget* parent = nullptr, int searchThreads = 0);

    /// The shared state every panel follows.
    Session* session() { return &session_; }
    /// The crash-recovery copy of the edited plan.
    Autosave* autosave() { return &autosave_; }
    /// If an ended instance left unsaved edits, asks whether to reopen them; returns true when the
    /// user chose to (the window is then loading them).
    bool offerRecovery();
    /// Reopens the unsaved edits `plan` (kept recoverable until saved or dropped).
    void recover(const RecoverablePlan& plan);
    /// The graph panel.
    GraphView* graphView() const { return graph_; }
    /// The inspector panel.
    InspectorPanel* inspector() const { return inspector_; }
    /// The op list.
    OpsPanel* opsPanel() const { return ops_; }
    /// The search bar.
    SearchBar* searchBar() const { return searchBar_; }
    /// The cluster panel.
    ClusterView* clusterView() const { return cluster_; }
    /// The timeline panel.
    TimelinePanel* timelinePanel() const { return timeline_; }
    /// The compare panel.
    CompareView* compareView() const { return compare_; }
    /// The tactics panel.
    TacticsPanel* tacticsPanel() const { return tactics_; }
    /// The calibration panel.
    CalibrationPanel* calibrationPanel() const { return calibration_; }
    /// The panel called `name` (graph, cluster, timeline, compare, inspector, ops, tactics), brought to the
    /// front; null for an unknown name.
    QWidget* showPanel(const QString& name);
    /// True when nothing runs in the background (loading, searching, layout).
    bool settled() const;

    /// Opens a model, cluster, plan or tactic file, told apart by its content.
    void openFile(const QString& path);
    /// Saves the plan to its file, or asks for one. Returns false if nothing was saved.
    bool savePlan();
    /// Asks for a file and saves the plan there.
    bool savePlanAs();
    /// Opens the Export Plan dialog on the current plan (framework formats with a preview).
    void exportPlanForFramework();

protected:
    /// Offers to save unsaved edits, then saves the window layout.
    void closeEvent(QCloseEvent* event) final;
    /// Accepts dragged files.
    void dragEnterEvent(QDragEnterEvent* event) final;
    /// Opens dropped files.
    void dropEvent(QDropEvent* event) final;

private:
    void createMenus();
    void createExportMenu(QMenu* file);
    QDockWidget* addPanel(QWidget* panel, const QString& title, const QString& name, Qt::DockWidgetArea area);
    void rebuildRecentMenu();
    void showError(const QString& message);
    void showShortcuts();
    void updateStatus();
    void updateTitle();

    Session session_;
    Autosave autosave_;
    RecentFiles recent_;
    GraphView* graph_ = nullptr;
    InspectorPanel* inspector_ = nullptr;
    OpsPanel* ops_ = nullptr;
    StagesPanel* stages_ = nullptr;
    SearchBar* searchBar_ = nullptr;
    ClusterView* cluster_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    CompareView* compare_ = nullptr;
    TacticsPanel* tactics_ = nullptr;
    CalibrationPanel* calibration_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QLabel* memoryLabel_ = nullptr;
    QLabel* fitLabel_ = nullptr;
    QLabel* pipelineLabel_ = nullptr;  ///< the stages and bubble of a pipelined plan
    QLabel* compareLabel_ = nullptr;
};

} // namespace shardscope::ui
