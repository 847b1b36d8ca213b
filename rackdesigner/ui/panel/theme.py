"""pyqtgraph set-up and the panel's colours: one colour per collective, used by every plot.

pyqtgraph picks the first Qt binding it finds, so PySide6 is imported (and named in
PYQTGRAPH_QT_LIB) before pyqtgraph; every panel module imports pyqtgraph from here.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pyqtgraph as pg
import PySide6.QtCore  # noqa: F401  (binding chosen before pyqtgraph loads)

from rackdesigner import vocabulary

pg.setConfigOptions(antialias=True, background="w", foreground="#3e4c59")

COLLECTIVE_COLORS = {c.name: c.color for c in vocabulary.COLLECTIVES.values()}
COLLECTIVE_LABELS = {c.name: c.label for c in vocabulary.COLLECTIVES.values()}
ALGORITHM_COLORS = {
    "ring": (31, 111, 209, 22), "tree": (46, 158, 68, 22), "nvls": (118, 185, 0, 30),
    "nvls_tree": (142, 68, 173, 22), "collnet_direct": (224, 123, 22, 24),
    "collnet_chain": (224, 123, 22, 24), "p2p": (123, 135, 148, 20),
}
# Power categories (stacked bottom to top) and their colours.
POWER_CATEGORIES = vocabulary.POWER_CATEGORIES
POWER_LABELS = {"gpu": "GPUs", "system": "CPU, chassis", "switch": "switches",
                "network": "NICs, DPUs", "optics": "optics, cables", "other": "other"}
POWER_COLORS = {"gpu": "#76b900", "system": "#52606d", "switch": "#1f6fd1",
                "network": "#e07b16", "optics": "#0e9aa7", "other": "#b8c2cc"}
BUDGET_COLOR = "#c0392b"
BASELINE_ALPHA = 110
TEXT = "#1f2933"
TEXT_DIM = "#616e7c"
UP = "#2e7d32"
DOWN = "#c62828"


def collective_pen(name: str, *, baseline: bool = False, dashed: bool = False) -> pg.QtGui.QPen:
    color = pg.mkColor(COLLECTIVE_COLORS.get(name, "#52606d"))
    if baseline:
        color.setAlpha(BASELINE_ALPHA)
    styles = pg.QtCore.Qt.PenStyle
    style = styles.DashLine if (baseline or dashed) else styles.SolidLine
    if baseline and dashed:
        style = styles.DotLine
    return pg.mkPen(color, width=1.6 if baseline else 2.0, style=style)


__all__ = ["pg"]
