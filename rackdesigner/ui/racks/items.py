"""Graphic items of the racks view: a rack (frame, U scale, header) and a mounted unit.

Items know their ids and the values to draw, never the document. Geometry is true to scale: a
19-inch rack's mounting width (482.6 mm) against 1U (44.45 mm), `U_PX` scene units per U. Far
out (level of detail below `LOD_LABELS`) units are plain coloured bars and the header keeps only
the rack's name, in a font that grows as the view shrinks, and its power bar: labelled columns.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from rackdesigner.model.cooling import RackHeat
from rackdesigner.model.rack_units import kw_text as _kw
from rackdesigner.model.rack_units import power_text
from rackdesigner.model.racks import RackSummary, SideDevice, Unit
from rackdesigner.ui import style
from rackdesigner.ui.canvas.failure_marks import paint_failed
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.racks.header_text import (
    EXTRA_W,
    HeaderLine,
    far_name,
    far_size,
    header_lines,
    scene_font,
)

U_PX = 14.0
RACK_W = round(482.6 / 44.45 * U_PX)  # true proportions of the 19-inch mounting width
SCALE_W = 22.0  # U numbers left of the rack
HEADER_H = 92.0
LOD_LABELS = 0.45
LOD_SCALE = 0.7
#: room above the header for the far zoom's name (its largest font, 48 px, x 1.6)
FAR_NAME_H = 80.0
#: the 0U side channels: a vertical strip `SIDE_W` wide per lane, `SIDE_GAP` apart, right of
#: the frame and left of the U scale (the racks' spacing leaves room for two lanes a side)
SIDE_W = 10.0
SIDE_GAP = 3.0

#: a unit's colour: its kind's (the vocabulary registry's); "compute" (a system with GPUs)
#: takes the GPU colour
ROLE_COLORS = {**style.KIND_COLORS, "compute": style.KIND_COLORS["gpu"]}
POWER_COLORS = {"ok": QColor("#27ae60"), "high": QColor("#e6a700"), "over": QColor("#d0312d")}
#: heat to liquid and to air (the bars beside the power bar, and the floor plan)
LIQUID_COLOR = QColor("#2874a6")
AIR_COLOR = QColor("#9aa8b6")  # grey-blue: never mistaken for the power bar's amber
EMPTY_U = QColor("#eef1f4")
FRAME = QColor("#2c3e50")


def role_color(role: str) -> QColor:
    return ROLE_COLORS.get(role, style.UNKNOWN_COLOR)


def heat_text(h: RackHeat | None) -> str:
    """"97.2 kW liquid · 22.8 kW air of 57.2 kW air limit"."""
    if h is None:
        return ""
    limit = f" of {_kw(h.air_limit_w)} kW limit" if h.air_limit_w is not None else ""
    over = " — OVER" if h.over_air_limit else ""
    return f"heat {_kw(h.liquid_w)} kW liquid · {_kw(h.air_w)} kW air{limit}{over}"


def weight_text(s: RackSummary) -> str:
    if not s.units:
        return "weight: empty"
    if s.weight_missing == len(s.units):
        return "weight: not published"
    text = f"{s.weight_kg:.0f} kg"
    if s.weight_missing:
        text += f" + {s.weight_missing} without a figure"
    return text


class RackItem(QGraphicsItem):
    """A rack: header (name, U used/free, power bar, heat to liquid and air against the air
    limit, weight), frame and U scale."""

    def __init__(self, summary: RackSummary, face: str, problems: int = 0,
                 heat: RackHeat | None = None) -> None:
        super().__init__()
        self.rack_id = summary.id
        self.summary = summary
        self.face = face
        self.problems = problems
        self.heat = heat
        self.frame_h = summary.height_u * U_PX
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0)
        self._set_tip()

    def set_summary(self, summary: RackSummary, problems: int) -> None:
        """New figures for the header (a link edit changed the rack's power)."""
        self.summary = summary
        self.problems = problems
        self._set_tip()
        self.update()

    def _set_tip(self) -> None:
        summary, face = self.summary, self.face
        heat = summary.heat_btu_h
        self.setToolTip(
            plain(f"{summary.label} ({summary.model}, {summary.height_u}U, "
                  f"{summary.cooling}-cooled)\n"
                  f"{summary.used_u.get(face, 0)}U used, "
                  f"{summary.height_u - summary.used_u.get(face, 0)}"
                  f"U free ({face})\n"
                  f"power {power_text(summary)}\nbudget: {summary.budget.basis}\n"
                  f"heat {heat[0]:,.0f} typ / {heat[1]:,.0f} max BTU/h\n"
                  + (f"{heat_text(self.heat)} ({self.heat.air_basis})\n" if self.heat else "")
                  + weight_text(summary)))

    def frame_rect(self) -> QRectF:
        return QRectF(0, 0, RACK_W, self.frame_h)

    def boundingRect(self) -> QRectF:
        """All the item paints: the header's lines reach `EXTRA_W` right of the frame, the far
        zoom's name `FAR_NAME_H` above the header (text painted outside it is left behind on
        screen when the header changes: stale glyphs after an elided line)."""
        return QRectF(-SCALE_W - 10, -HEADER_H - FAR_NAME_H, RACK_W + SCALE_W + 10 + EXTRA_W,
                      self.frame_h + HEADER_H + FAR_NAME_H + 4)

    def shape(self) -> QPainterPath:
        """What a click or a rubber band hits: the rack's column (frame, scale and header)."""
        path = QPainterPath()
        path.addRect(QRectF(-SCALE_W, -HEADER_H, RACK_W + SCALE_W + 2,
                            self.frame_h + HEADER_H + 4))
        return path

    def u_at(self, y: float) -> int:
        """The U whose row contains local y (1 = bottom)."""
        return int(self.summary.height_u - y // U_PX)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        s = self.summary
        frame = self.frame_rect()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(EMPTY_U)
        painter.drawRect(frame)
        selected = self.isSelected()
        pen = QPen(style.SELECTION if selected else
                   (POWER_COLORS["over"] if self.problems else FRAME),
                   3 if selected or self.problems else 2)
        pen.setCosmetic(lod < LOD_LABELS)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(frame)
        state = s.power_state()
        if lod >= LOD_SCALE:
            painter.setFont(scene_font(6.5))
            painter.setPen(style.TEXT_DIM)
            for u in range(1, s.height_u + 1):
                y = (s.height_u - u) * U_PX
                painter.drawText(QRectF(-SCALE_W, y, SCALE_W - 3, U_PX),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                                 str(u))
            painter.setPen(QPen(QColor("#dde3e8"), 0.5))
            for u in range(1, s.height_u):
                painter.drawLine(0, u * U_PX, RACK_W, u * U_PX)
        # header
        far = lod < LOD_LABELS
        # far out the bar keeps a readable height on screen (about 5 px), under the name
        bar_h = min(HEADER_H - 24, 5.0 / max(lod, 0.05)) if far else 10.0
        bar = QRectF(0, -6 - bar_h, RACK_W, bar_h)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#d9dee3"))
        painter.drawRect(bar)
        budget = s.budget.watts or max(s.max_w, 1.0)
        color = POWER_COLORS[state]
        peak_w = min(1.0, s.max_w / budget) * RACK_W
        typ_w = min(1.0, s.typical_w / budget) * RACK_W
        light = QColor(color)
        light.setAlpha(110)
        painter.setBrush(light)
        painter.drawRect(QRectF(0, bar.y(), peak_w, bar.height()))
        painter.setBrush(color)
        painter.drawRect(QRectF(0, bar.y(), typ_w, bar.height()))
        if not far and self.heat is not None:
            self._paint_heat(painter, budget)
        if far:
            # the name sized to the column, or its short form as the canvas writes it
            # ("SNR 1"); when none reads on screen, only its number (racks of a row are read
            # left to right). Never the id: "rack-1" named the network rack between "NVL72
            # rack 4" and "NVL72 rack 5", which were "rack-5" and "rack-6".
            width = RACK_W + SCALE_W + 20
            text = far_name(s.label, lod, width)
            size = far_size(text, lod, width)
            painter.setPen(style.TEXT if state != "over" else POWER_COLORS["over"])
            f = style.font(8, True)
            f.setPixelSize(max(1, int(size)))
            painter.setFont(f)
            painter.drawText(QRectF(-SCALE_W - 10, -HEADER_H - size * 1.6, width,
                                    HEADER_H + size * 1.6 - bar_h - 8),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, text)
            return
        over_air = self.heat is not None and self.heat.over_air_limit
        for i, line in enumerate(self.header_lines(painter.device())):
            red = (i == 3 and state == "over") or (i == 4 and over_air)
            painter.setPen(style.TEXT if i == 0 else
                           POWER_COLORS["over"] if red else style.TEXT_DIM)
            painter.setFont(line.font)
            painter.drawText(line.rect, Qt.AlignmentFlag.AlignLeft
                             | Qt.AlignmentFlag.AlignVCenter, line.text)

    def header_lines(self, device=None) -> list[HeaderLine]:
        """The header's name and figure lines, each fitted to the rack's column on `device`
        (`racks/header_text.py`)."""
        s = self.summary
        used = s.used_u.get(self.face, 0)
        heat = s.heat_btu_h
        lines = [f"{s.model} · {used}U used · {s.height_u - used}U free",
                 f"{heat[1] / 1000:,.1f}k BTU/h max · {weight_text(s)}",
                 power_text(s), heat_text(self.heat)]
        return header_lines(s.label, lines, RACK_W + EXTRA_W, -HEADER_H, device)

    def _paint_heat(self, painter: QPainter, budget: float) -> None:
        """Two thin bars above the power bar, on its scale: heat to liquid, heat to air with
        the rack's air-cooling limit as a tick (the air bar red when over it)."""
        h = self.heat
        assert h is not None
        scale = max(budget, h.liquid_w + h.air_w, h.air_limit_w or 0.0, 1.0)
        painter.setPen(Qt.PenStyle.NoPen)
        for y, watts, color in ((-22.0, h.liquid_w, LIQUID_COLOR),
                                (-28.0, h.air_w, POWER_COLORS["over"] if h.over_air_limit
                                 else AIR_COLOR)):
            painter.setBrush(QColor("#e4e7eb"))
            painter.drawRect(QRectF(0, y, RACK_W, 4))
            painter.setBrush(color)
            painter.drawRect(QRectF(0, y, min(1.0, watts / scale) * RACK_W, 4))
        if h.air_limit_w is not None:
            x = min(1.0, h.air_limit_w / scale) * RACK_W
            painter.setPen(QPen(POWER_COLORS["over"], 1.5))
            painter.drawLine(QPointF(x, -30.0), QPointF(x, -22.0))

    def type(self) -> int:
        return QGraphicsItem.UserType + 40


class _MountedItem(QGraphicsItem):
    """Something mounted in a rack, drawn as a box in its kind's colour: selectable on the face
    shown, a dashed outline seen through the rack from the other face (`ghost`), greyed and
    hatched when marked failed."""

    def __init__(self, rect: QRectF, ghost: bool, failed: bool, problem: bool = False) -> None:
        super().__init__()
        self.problem = problem
        self.ghost = ghost
        self.failed = failed  # marked failed (or in a failed group or rack): greyed, hatched
        self._rect = rect
        if not ghost:
            self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(5 if not ghost else 1)
        self._set_tip()

    def _set_tip(self) -> None:
        raise NotImplementedError

    def set_failed(self, failed: bool) -> None:
        """Greyed and hatched or not (a Fail / Restore: nothing else about it changed)."""
        if failed != self.failed:
            self.failed = failed
            self._set_tip()
            self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def _paint_box(self, painter: QPainter, lod: float, color: QColor, rect: QRectF) -> bool:
        """The box (or the outline of a ghost); True when labels are to be drawn on it."""
        if self.ghost:
            painter.setPen(QPen(QColor("#b8c2cc"), 0, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect)
            return False
        fill = QColor(color)
        fill.setAlpha(200)
        painter.setBrush(QBrush(fill))
        pen = QPen(style.SELECTION if self.isSelected() else
                   (POWER_COLORS["over"] if self.problem else color.darker(140)),
                   3 if self.isSelected() or self.problem else 1)
        pen.setCosmetic(lod < LOD_LABELS)
        painter.setPen(pen)
        painter.drawRect(rect)
        if self.failed:
            paint_failed(painter, rect, far=lod < LOD_LABELS)
        return lod >= LOD_LABELS


class UnitItem(_MountedItem):
    """A mounted unit: a box spanning its U with its name and model, coloured by role."""

    def __init__(self, unit: Unit, problem: bool = False, ghost: bool = False,
                 failed: bool = False) -> None:
        self.unit_id = unit.id
        self.unit = unit
        super().__init__(QRectF(1, 0, RACK_W - 2, unit.height_u * U_PX), ghost, failed, problem)

    def _set_tip(self) -> None:
        unit = self.unit
        self.setToolTip(plain(f"{unit.label}\n{unit.model_name} ({unit.model}), {unit.height_u}U\n"
                              f"U{unit.u}–U{unit.top}, {unit.face}"
                              + (", liquid-cooled" if unit.cooling == "liquid" else "")
                              + (" — FAILED" if self.failed else "")))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect.adjusted(0, 0.5, 0, -0.5)
        if not self._paint_box(painter, lod, role_color(self.unit.role), rect):
            return
        painter.setPen(QColor("#ffffff"))
        painter.setFont(scene_font(7, True))
        text_rect = rect.adjusted(4, 0, -4, 0)
        if self.unit.height_u >= 2:
            painter.drawText(text_rect.adjusted(0, 1, 0, 0),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                             self.unit.label)
            painter.setFont(scene_font(6.5))
            painter.drawText(text_rect.adjusted(0, 12, 0, 0),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                             self.unit.model_name)
        else:  # one U: the name, then as much of the model as fits
            painter.setFont(scene_font(6.5, True))
            text = painter.fontMetrics().elidedText(
                f"{self.unit.label} · {self.unit.model_name}", Qt.TextElideMode.ElideRight,
                int(text_rect.width()))
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             text)

    def type(self) -> int:
        return QGraphicsItem.UserType + 41


def side_rect(device: SideDevice, frame_h: float) -> QRectF:
    """Where a 0U device's strip stands, in its rack's coordinates: its channel and lane,
    the frame's height less a U at each end (a vertical PDU runs the rack's height)."""
    step = SIDE_W + SIDE_GAP
    if device.side == "right":
        x = RACK_W + SIDE_GAP + device.lane * step
    else:
        x = -SCALE_W - step - device.lane * step
    return QRectF(x, U_PX, SIDE_W, max(U_PX, frame_h - 2 * U_PX))


class SideItem(_MountedItem):
    """A 0U device in a rack's side channel (a vertical PDU): an upright strip beside the
    rear elevation with its name and capacity, selectable there; an outline seen from the
    front."""

    def __init__(self, device: SideDevice, rect: QRectF, ghost: bool = False,
                 failed: bool = False) -> None:
        self.device_id = device.id
        self.device = device
        super().__init__(rect, ghost, failed)

    def _set_tip(self) -> None:
        device = self.device
        self.setToolTip(plain(f"{device.label}\n{device.model_name} ({device.model})"
                              + (f", {device.figures}" if device.figures else "")
                              + f"\n0U, {device.side} side channel at the rear"
                              + (" — FAILED" if self.failed else "")))

    def text(self) -> str:
        """What the strip reads: its name and capacity ("pdu-1 · 22 kW")."""
        return " · ".join(x for x in (self.device.label, self.device.figures) if x)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect
        if not self._paint_box(painter, lod, role_color(self.device.kind), rect):
            return
        painter.save()  # the text runs up the strip, as on the PDU's own label
        painter.translate(rect.left(), rect.bottom())
        painter.rotate(-90)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(scene_font(6.5, True))
        along = QRectF(4, 0, rect.height() - 8, rect.width())
        text = painter.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                                int(along.width()))
        painter.drawText(along, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        painter.restore()

    def type(self) -> int:
        return QGraphicsItem.UserType + 42
