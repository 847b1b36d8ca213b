"""The floor plan: racks seen from above, by row, with hot and cold aisles; drag to move.

One scene unit is a centimetre. Rows alternate their facing so two rows share a cold aisle (the
fronts face each other) and the next pair's backs share a hot aisle, as the generators' floor
model assumes (`generators.cabling`). A drag is one `move_racks_on_floor` step on release; the
cables of the moved racks follow.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsItem, QGraphicsScene, QGraphicsView

from rackdesigner.generators.cabling import RACK_WIDTH_M, floor_spots
from rackdesigner.model import Layout
from rackdesigner.model.cooling import RackHeat, cooling_report
from rackdesigner.model.racks import RackIndex
from rackdesigner.ui import style
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.racks.items import AIR_COLOR, LIQUID_COLOR, POWER_COLORS, heat_text

CM = 100.0  # scene units per metre
RACK_DEPTH_M = 1.2  # drawn depth of a rack (model assumption for the plan only)
SNAP_M = 0.1


class FloorRackItem(QGraphicsItem):
    """A rack from above: its front coloured by power, its back split into heat to liquid and
    heat to air (the air part red when over the rack's air-cooling limit)."""

    def __init__(self, rack_id: str, label: str, state: str, faces_down: bool,
                 heat: RackHeat | None = None) -> None:
        super().__init__()
        self.rack_id = rack_id
        self.label = label
        self.state = state
        self.faces_down = faces_down
        self.heat = heat
        self._rect = QRectF(0, 0, RACK_WIDTH_M * CM, RACK_DEPTH_M * CM)
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        tip = f"{label}: drag to move it on the floor"
        if heat is not None:
            tip += f"\n{heat_text(heat)}"
        self.setToolTip(plain(tip))

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setBrush(QColor("#ffffff"))
        painter.setPen(QPen(style.SELECTION if self.isSelected() else QColor("#2c3e50"),
                            3 if self.isSelected() else 1.5))
        painter.drawRect(self._rect)
        front = self._rect.height() - 8 if self.faces_down else 0
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(POWER_COLORS[self.state])
        painter.drawRect(QRectF(0, front, self._rect.width(), 8))  # the front, coloured by power
        h = self.heat
        if h is not None and h.liquid_w + h.air_w > 0:  # the back: liquid | air
            back = 0 if self.faces_down else self._rect.height() - 8
            share = h.liquid_w / (h.liquid_w + h.air_w)
            width = self._rect.width()
            painter.setBrush(LIQUID_COLOR)
            painter.drawRect(QRectF(0, back, width * share, 8))
            painter.setBrush(POWER_COLORS["over"] if h.over_air_limit else AIR_COLOR)
            painter.drawRect(QRectF(width * share, back, width * (1 - share), 8))
        painter.setPen(style.TEXT)
        painter.setFont(style.font(7))
        painter.save()
        painter.translate(self._rect.center())
        painter.rotate(-90)
        painter.drawText(QRectF(-55, -25, 110, 50), Qt.AlignmentFlag.AlignCenter,
                         self.label)
        painter.restore()


class FloorScene(QGraphicsScene):
    racks_dropped = Signal(object)  # {rack id: (x_m, y_m)}
    rack_added = Signal(str, float, float)  # a rack model from the Palette, at (x_m, y_m)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.layout: Layout | None = None
        self.item_for_rack: dict[str, FloorRackItem] = {}
        self.setBackgroundBrush(QColor("#f4f6f8"))

    def set_layout(self, layout: Layout | None) -> None:
        self.layout = layout
        self.rebuild()

    def rebuild(self) -> None:
        self.clear()
        self.item_for_rack = {}
        if self.layout is None:
            return
        index = RackIndex(self.layout)
        summaries = index.summaries()
        heat = cooling_report(self.layout, index.power_model, index.power_by_rack()).racks
        spots = floor_spots(self.layout)
        rows = sorted({round(s.y_m, 3) for s in spots.values()})
        extent = {y: (min(s.x_m for s in spots.values() if round(s.y_m, 3) == y),
                      max(s.x_m for s in spots.values() if round(s.y_m, 3) == y)
                      + RACK_WIDTH_M) for y in rows}
        for n, y in enumerate(rows):
            label = self.addText(f"Row {n + 1}", style.font(9, True))
            label.setPos(extent[y][0] * CM - 90, y * CM + 40)
            if n + 1 < len(rows):  # the aisle between this row and the next
                x0 = min(extent[y][0], extent[rows[n + 1]][0])
                x1 = max(extent[y][1], extent[rows[n + 1]][1])
                self._aisle(n % 2 == 0, y + RACK_DEPTH_M, rows[n + 1], x0, x1)
        for rack_id, spot in spots.items():
            summary = summaries.get(rack_id)
            row = rows.index(round(spot.y_m, 3))
            item = FloorRackItem(rack_id, summary.label if summary else rack_id,
                                 summary.power_state() if summary else "ok", row % 2 == 0,
                                 heat.get(rack_id))
            item.setPos(spot.x_m * CM, spot.y_m * CM)
            self.addItem(item)
            self.item_for_rack[rack_id] = item
        self.setSceneRect(self.itemsBoundingRect().adjusted(-80, -80, 80, 80))

    def _aisle(self, cold: bool, y0: float, y1: float, x0: float, x1: float) -> None:
        """Rows alternate their facing: fronts share cold aisles, backs hot ones."""
        if y1 <= y0:
            return
        rect = QRectF(x0 * CM, y0 * CM, (x1 - x0) * CM, (y1 - y0) * CM)
        band = self.addRect(rect, QPen(Qt.PenStyle.NoPen),
                            QColor(52, 152, 219, 30) if cold else QColor(231, 76, 60, 25))
        band.setZValue(-1)
        text = self.addText("cold aisle (fronts)" if cold else "hot aisle (backs)",
                            style.font(8))
        text.setDefaultTextColor(QColor("#2980b9") if cold else QColor("#c0392b"))
        text.setPos(rect.x() + 8, rect.y() + rect.height() / 2 - 12)

    def mouseReleaseEvent(self, event) -> None:
        moved = {}
        for item in self.selectedItems():
            if isinstance(item, FloorRackItem):
                pos = item.pos()
                spot = (round(pos.x() / CM / SNAP_M) * SNAP_M,
                        round(pos.y() / CM / SNAP_M) * SNAP_M)
                moved[item.rack_id] = spot
        super().mouseReleaseEvent(event)
        if moved and self.layout is not None:
            spots = floor_spots(self.layout)
            changed = {r: s for r, s in moved.items()
                       if r in spots and (abs(spots[r].x_m - s[0]) > 1e-6
                                          or abs(spots[r].y_m - s[1]) > 1e-6)}
            if changed:
                self.racks_dropped.emit(changed)


    def _rack_model(self, event) -> str | None:
        from rackdesigner.ui.canvas.interaction import MODEL_MIME

        mime = event.mimeData()
        if self.layout is None or not mime.hasFormat(MODEL_MIME):
            return None
        model = bytes(mime.data(MODEL_MIME)).decode()
        catalog = self.layout.catalog
        return (model if model in catalog and catalog.get(model).traits.contains == "units"
                else None)

    def dragEnterEvent(self, event) -> None:
        if self._rack_model(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        model = self._rack_model(event)
        if model is None:
            event.ignore()
            return
        event.acceptProposedAction()
        pos = event.scenePos()
        self.rack_added.emit(model, round(pos.x() / CM / SNAP_M) * SNAP_M,
                             round(pos.y() / CM / SNAP_M) * SNAP_M)


class FloorView(QGraphicsView):
    def __init__(self, scene: FloorScene, parent=None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)

    def wheelEvent(self, event) -> None:
        factor = 1.15 ** (event.angleDelta().y() / 120)
        self.scale(factor, factor)

    def fit(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if not rect.isEmpty():
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    def rack_point(self, rack_id: str) -> QPointF:
        item = self.scene().item_for_rack[rack_id]  # type: ignore[attr-defined]
        return item.sceneBoundingRect().center()
