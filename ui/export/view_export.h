#pragma once
// Exports of the views: SVG (text stays text, so op names can be searched) and PNG, written
// atomically; and the simulated step as Chrome trace JSON for Perfetto.

#include "session/session.h"

#include <QString>

#include <functional>

class QGraphicsScene;
class QPainter;
class QWidget;

namespace shardscope::ui {

/// Writes the whole of `scene` as SVG at full detail. Returns an error message, or empty.
QString exportSceneSvg(QGraphicsScene& scene, const QString& path, const QString& title);
/// Writes the whole of `scene` as PNG at full detail (capped at 16384 pixels a side).
QString exportScenePng(QGraphicsScene& scene, const QString& path);
/// Writes what `render` paints over `size` as SVG.
QString exportPaintedSvg(const std::function<void(QPainter&, const QSize&)>& render, const QSize& size,
                         const QString& path, const QString& title);
/// Writes `widget` as it shows now, as PNG.
QString exportWidgetPng(QWidget& widget, const QString& path);
/// Writes `session`'s simulated step as Chrome trace JSON (the first node and one device per class).
QString exportTrace(const Session& session, const QString& path);

} // namespace shardscope::ui
