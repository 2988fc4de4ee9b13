#pragma once
// What the graph view draws: op and stack nodes, and edges. Thin painting classes: what to show
// (colour, text, badges) is decided by the view and handed over as a look.

#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QStringList>
#include <QVector>

namespace shardscope::ui {

/// How a node looks.
struct NodeLook {
    QColor fill;
    QString title;            ///< op name, or "layers.0 - layers.95"
    QString subtitle;         ///< kind and strategy, or "x 96 blocks of 15 ops"
    QStringList badges;       ///< "AR 12.6 MB"
    QVector<QColor> strip;    ///< a stack's per-op colours (one block)
    QVector<QColor> stages;   ///< pipelined: the op's stage colour, or the stack's per block (its bands)
    QString stageText;        ///< pipelined: "stage 2 of 4", "stages 0-3 (blocks 0-23, 24-47, ...)"
    bool locked = false;
    bool stack = false;
    bool undecided = false;   ///< no tactic decided the op yet (a tactic step's partial plan)
};

/// A node of the drawn graph; `index` is its DisplayGraph node.
class NodeItem final : public QGraphicsItem {
public:
    /// A node of `size` (points) centred on the item's position.
    NodeItem(int index, QSizeF size);
    /// Its DisplayGraph node.
    int index() const { return index_; }
    /// Replaces what it shows.
    void setLook(const NodeLook& look);
    /// What it shows.
    const NodeLook& look() const { return look_; }
    /// Marks it as the selected node.
    void setHighlighted(bool on);

    /// The node's rectangle plus the selection outline.
    QRectF boundingRect() const final;
    /// Paints with level of detail: a plain box when zoomed far out, text and badges when close.
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) final;

private:
    int index_;
    QSizeF size_;
    NodeLook look_;
    bool highlighted_ = false;
};

/// An edge: a Bezier path whose width shows the resharding bytes, with its collectives' badge.
class EdgeItem final : public QGraphicsPathItem {
public:
    /// An edge along `path` (already in scene coordinates).
    explicit EdgeItem(const QPainterPath& path);
    /// Sets the pen width, colour, dash (tied parameters) and badge text.
    void setLook(double width, const QColor& color, bool dashed, const QString& badge);

    /// The path, its arrowhead and badge.
    QRectF boundingRect() const final;
    /// Paints the path, the arrowhead and, when close enough, the badge.
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) final;

private:
    QString badge_;
    QRectF badgeRect_;
};

} // namespace shardscope::ui
