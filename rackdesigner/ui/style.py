"""Colours, sizes and fonts of the canvas, in one place so the items stay consistent.

Protocol colours follow common usage (NVIDIA green for NVLink, InfiniBand blue); device kinds get
a distinct accent and a short badge so GPUs, switches and NICs read at a glance.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem

PROTOCOL_COLORS = {
    "nvlink": QColor("#5c9e00"),
    "c2c": QColor("#9b59b6"),
    "infiniband": QColor("#1f6fd1"),
    "ethernet": QColor("#e07b16"),
    "pcie": QColor("#7b8794"),
}
PROTOCOL_LABELS = {"nvlink": "NVLink", "c2c": "C2C", "infiniband": "InfiniBand",
                   "ethernet": "Ethernet", "pcie": "PCIe"}
MIXED_COLOR = QColor("#52606d")

KIND_COLORS = {
    "gpu": QColor("#76b900"),
    "nvswitch": QColor("#8e44ad"),
    "switch": QColor("#1f6fd1"),
    "nic": QColor("#e07b16"),
    "dpu": QColor("#d35400"),
    "cpu": QColor("#34495e"),
    "pcie_switch": QColor("#7b8794"),
    "rack": QColor("#2c3e50"),
    "chassis": QColor("#95a5a6"),
    "system": QColor("#16a085"),
}
KIND_BADGES = {"gpu": "GPU", "nvswitch": "NVS", "switch": "SW", "nic": "NIC", "dpu": "DPU",
               "cpu": "CPU", "pcie_switch": "PCIe", "rack": "RACK", "chassis": "CHS",
               "cable": "CBL", "transceiver": "XCVR", "system": "SYS"}
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
