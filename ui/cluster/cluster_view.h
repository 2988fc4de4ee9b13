#pragma once
// The cluster panel: nodes as boxes holding their devices, links coloured by the bytes they carry
// per step (a heat legend per link level, with units), hover for bytes, time and utilisation; the
// devices coloured by the mesh-axis groups they form, following the selected op's collectives.
// The scene is built while the panel is active (seen), so a panel behind another tab costs nothing.

#include "cluster_layout.h"

#include "session/session.h"

#include <QGraphicsScene>
#include <QWidget>

class QComboBox;
class QLabel;

namespace shardscope::ui {

class ClusterGridItem;
class ZoomView;

class ClusterView final : public QWidget {
    Q_OBJECT
public:
    /// A view of `session`'s cluster and simulated traffic.
    explicit ClusterView(Session* session, QWidget* parent = nullptr);
    /// The scene (exports, tests).
    QGraphicsScene* scene() { return &scene_; }
    /// The axes whose groups colour the devices now (0: none).
    AxisSet groupAxes() const { return groupAxes_; }
    /// Fits the cluster into the view.
    void fitToWindow();

    /// Tells the panel whether the user can see it; while inactive it defers its work.
    void setActive(bool active);

private:
    void rebuild();
    void recolour();
    AxisSet selectedOpAxes(QString* what) const;

    Session* session_;
    QGraphicsScene scene_;
    ZoomView* view_ = nullptr;
    QComboBox* axes_ = nullptr;
    QLabel* note_ = nullptr;
    QLabel* legend_ = nullptr;
    ClusterGridItem* grid_ = nullptr;
    AxisSet groupAxes_ = 0;
    bool stale_ = true;
    bool active_ = true;
};

} // namespace shardscope::ui
