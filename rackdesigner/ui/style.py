"""Colours, sizes and fonts of the canvas, in one place so the items stay consistent.

Protocol colours follow common usage (NVIDIA green for NVLink, InfiniBand blue); device kinds get
a distinct accent and a short badge so GPUs, switches and NICs read at a glance.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from rackdesigner import vocabulary

# colours, labels and badges of protocols and kinds are the vocabulary registry's
PROTOCOL_COLORS = {p.name: QColor(p.color) for p in vocabulary.PROTOCOLS.values()}
PROTOCOL_LABELS = {p.name: p.label for p in vocabulary.PROTOCOLS.values()}
MIXED_COLOR = QColor("#52606d")

KIND_COLORS = {k.name: QColor(k.color) for k in vocabulary.KINDS.values() if k.color}
KIND_BADGES = {k.name: k.badge for k in vocabulary.KINDS.values()}
UNKNOWN_COLOR = QColor("#c0392b")

DEVICE_WIDTH = 150.0
HEADER_HEIGHT = 36.0
PORT_ROW_HEIGHT = 15.0
MIN_DEVICE_HEIGHT = 56.0
GROUP_MARGIN = 14.0
GROUP_HEADER = 22.0
COLLAPSED_WIDTH = 190.0
BADGE_POINTS_FAR = 22.0  # the kind badge of a box drawn without text rows

CANVAS_BG = QColor("#f4f6f8")
GRID_DOT = QColor("#d5dbe1")
BOX_FILL = QColor("#ffffff")
BOX_BORDER = QColor("#b8c2cc")
TEXT = QColor("#1f2933")
TEXT_DIM = QColor("#616e7c")
SELECTION = QColor("#2680eb")
WIRE_OK = QColor("#27ae60")
WIRE_BAD = QColor("#e74c3c")
GROUP_FILL = QColor(31, 111, 209, 14)
GROUP_BORDER = QColor("#9aa5b1")

# Zoom thresholds (scene → device scale) for the level of detail.
LOD_TEXT = 0.45       # below: no per-port text, boxes only show the model
LOD_BOXES = 0.22      # below: plain coloured boxes
OVERVIEW_ZOOM = 0.18  # below: nodes and trays collapse, wires bundle between them


def font(point_size: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


def protocol_color(protocol: str | None) -> QColor:
    return PROTOCOL_COLORS.get(protocol or "", MIXED_COLOR)


def format_rate(gbps: float) -> str:
    if gbps >= 1000 and gbps % 100 == 0:
        return f"{gbps / 1000:g}T"
    return f"{gbps:g}G"


def lod(painter: QPainter) -> float:
    """The scale at which an item is being painted (1.0 = 100% zoom)."""
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
