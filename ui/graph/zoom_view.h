#pragma once
// A QGraphicsView that zooms with the wheel around the cursor, pans by dragging, and reports
// clicks on nodes.

#include <QGraphicsView>

namespace shardscope::ui {

class ZoomView final : public QGraphicsView {
    Q_OBJECT
public:
    /// A view of `scene`.
    explicit ZoomView(QGraphicsScene* scene, QWidget* parent = nullptr);
    /// Zooms by `factor` around the view's centre, within sensible limits.
    void zoomBy(double factor);
    /// Fits the whole scene; very tall graphs are fitted to their width instead.
    void fitAll();

signals:
    /// A node was clicked (its DisplayGraph index).
    void nodeClicked(int index);
    /// A node was double-clicked.
    void nodeActivated(int index);

protected:
    /// Zooms around the cursor.
    void wheelEvent(QWheelEvent* event) final;
    /// Reports clicks on nodes; elsewhere starts a pan.
    void mousePressEvent(QMouseEvent* event) final;
    /// Reports double-clicks on nodes.
    void mouseDoubleClickEvent(QMouseEvent* event) final;

private:
    int nodeAt(const QPoint& pos) const;
};

} // namespace shardscope::ui
