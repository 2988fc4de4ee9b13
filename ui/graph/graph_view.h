#pragma once
// The graph panel: the model graph laid out by Graphviz off the UI thread, ops coloured by their
// strategy with a legend, collectives as badges on ops and edges, edge width by resharding bytes,
// the repeated blocks collapsed into one stack node that expands on demand; zoom, pan, fit and
// find by name. It follows the session's plan and selection, and selects what is clicked.

#include "display_graph.h"
#include "graph_layout.h"
#include "jobs/job_runner.h"
#include "session/session.h"

#include <QGraphicsScene>
#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QToolButton;

namespace shardscope::ui {

class EdgeItem;
class NodeItem;
class ZoomView;

class GraphView final : public QWidget {
    Q_OBJECT
public:
    /// A view of `session`'s graph.
    explicit GraphView(Session* session, QWidget* parent = nullptr);

    /// True while a layout is being computed.
    bool layoutBusy() const { return layout_.busy(); }
    /// True when the repeated blocks are shown op by op.
    bool expanded() const { return expanded_; }
    /// Shows the repeated blocks op by op (a new layout) or as one stack node.
    void setExpanded(bool expanded);
    /// Fits the graph into the view.
    void fitToWindow();
    /// Zooms in one step.
    void zoomIn();
    /// Zooms out one step.
    void zoomOut();
    /// Selects the op called `name` (or the first whose name contains it) and centres it; false if none.
    bool findOp(const QString& name);
    /// Focuses the find field.
    void focusFind();
    /// The drawn graph, or null before the first layout.
    const DisplayGraph* displayGraph() const { return display_.get(); }
    /// The scene (for tests and exports).
    QGraphicsScene* scene() { return &scene_; }
    /// The legend's entries as shown.
    QStringList legendLabels() const;
    /// The highlighted (selected) node, or -1.
    int highlightedNode() const { return highlighted_; }
    /// Where node `index` is drawn, in the coordinates of the graphics view's viewport.
    QPoint nodePosition(int index) const;

signals:
    /// A layout was applied to the scene.
    void layoutFinished();

private:
    struct Layout {
        std::shared_ptr<const Problem> problem;
        std::shared_ptr<const DisplayGraph> display;
        LayoutResult geometry;
    };
    void requestLayout();
    void applyLayout(const Layout& layout);
    void refreshLooks();
    void refreshSelection(bool centre);
    void onNodeClicked(int index);
    void onNodeActivated(int index);

    Session* session_;
    JobRunner layout_;
    QGraphicsScene scene_;
    ZoomView* view_ = nullptr;
    QListWidget* legend_ = nullptr;
    QLineEdit* find_ = nullptr;
    QLabel* status_ = nullptr;
    QToolButton* expand_ = nullptr;
    std::shared_ptr<const Problem> laidOut_;
    std::shared_ptr<const DisplayGraph> display_;
    std::vector<NodeItem*> nodes_;
    std::vector<EdgeItem*> edges_;
    bool expanded_ = false;
    int highlighted_ = -1;
};

} // namespace shardscope::ui
