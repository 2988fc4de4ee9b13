#include "view_export.h"

#include "util/qt_text.h"

#include "engine/io/json_fields.h"
#include "engine/sim/device_selection.h"
#include "engine/sim/trace_export.h"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include <algorithm>

namespace shardscope::ui {

namespace {

/// Renders the scene with item caches off, so the output gets every item at full detail.
void renderScene(QGraphicsScene& scene, QPainter& painter, const QRectF& target) {
    std::vector<std::pair<QGraphicsItem*, QGraphicsItem::CacheMode>> caches;
    for (QGraphicsItem* item : scene.items())
        if (item->cacheMode() != QGraphicsItem::NoCache) {
            caches.emplace_back(item, item->cacheMode());
            item->setCacheMode(QGraphicsItem::NoCache);
        }
    scene.render(&painter, target, scene.itemsBoundingRect().adjusted(-10, -10, 10, 10));
    for (auto [item, mode] : caches)
        item->setCacheMode(mode);
}

QString saveError(const QSaveFile& file) { return QObject::tr("Could not write %1: %2").arg(file.fileName(), file.errorString()); }

} // namespace

QString exportSceneSvg(QGraphicsScene& scene, const QString& path, const QString& title) {
    const QRectF bounds = scene.itemsBoundingRect().adjusted(-10, -10, 10, 10);
    return exportPaintedSvg([&scene, bounds](QPainter& p, const QSize&) { renderScene(scene, p, QRectF(QPointF(0, 0), bounds.size())); },
                            bounds.size().toSize(), path, title);
}

QString exportScenePng(QGraphicsScene& scene, const QString& path) {
    QSizeF size = scene.itemsBoundingRect().adjusted(-10, -10, 10, 10).size();
    const double shrink = std::min(1.0, 16384.0 / std::max(size.width(), size.height()));
    size *= shrink;
    QImage image(size.toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        renderScene(scene, p, QRectF(QPointF(0, 0), size));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
        return saveError(file);
    return {};
}

QString exportPaintedSvg(const std::function<void(QPainter&, const QSize&)>& render, const QSize& size,
                         const QString& path, const QString& title) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return saveError(file);
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    svg.setDescription(QObject::tr("Exported by Shardscope"));
    {
        QPainter p(&svg);
        render(p, size);
    }
    if (!file.commit())
        return saveError(file);
    return {};
}

QString exportWidgetPng(QWidget& widget, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !widget.grab().save(&file, "PNG") || !file.commit())
        return saveError(file);
    return {};
}

QString exportTrace(const Session& session, const QString& path) {
    const auto sim = session.simulation().result();
    if (!sim || !session.loaded())
        return QObject::tr("Nothing to export yet: the plan is still being simulated");
    const Cluster& cluster = *session.state().problem->cluster;
    try {
        writeFileAtomically(path.toStdString(), chromeTraceJson(*sim, cluster, session.state().plan.mesh,
                                                                defaultShownDevices(*sim, cluster)));
    } catch (const std::exception& e) {
        return q(e.what());
    }
    return {};
}

} // namespace shardscope::ui
