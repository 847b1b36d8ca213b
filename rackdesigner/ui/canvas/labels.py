"""Where the count pills of link bundles go (×4, ×18), so that they never hide each other.

A DGX draws 32 NVLink bundles between a row of GPUs and a row of NVSwitches; their midpoints
line up on one horizontal line and many coincide, so pills at the midpoints would stack and
show a count under the wrong wire. Each pill is instead placed at the first of a few positions
along its own wire that is free of other pills and of boxes; a pill with no free position is
left out (its bundle still says its count on hover and when selected). Bigger bundles choose
first. One pass over every bundle with a spatial hash: linear in the number of bundles.

The scene paints the pills in its foreground, above every wire: a pill drawn by its own bundle
would be crossed by the wires painted after it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen

from rackdesigner.ui import style

# positions along the wire, from its middle outwards
CANDIDATES = (0.5, 0.45, 0.55, 0.4, 0.6, 0.35, 0.65, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8)
PILL_HEIGHT = 14.0
PILL_PADDING = 8.0
GAP = 2.0  # between two pills
CELL = 64.0


@lru_cache(maxsize=512)
def pill_size(count: int) -> tuple[float, float]:
    """Width and height of a bundle's count pill, in scene units."""
    metrics = QFontMetricsF(style.font(6.5, True))
    return metrics.horizontalAdvance(f"×{count}") + PILL_PADDING, PILL_HEIGHT


class _Occupied:
    """Rectangles already taken, bucketed by grid cell."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = (
            defaultdict(list))

    @staticmethod
    def _span(r: tuple[float, float, float, float]):
        x0, y0, x1, y1 = r
        for ix in range(int(x0 // CELL), int(x1 // CELL) + 1):
            for iy in range(int(y0 // CELL), int(y1 // CELL) + 1):
                yield ix, iy

    def add(self, r: tuple[float, float, float, float]) -> None:
        for cell in self._span(r):
            self._cells[cell].append(r)

    def hits(self, r: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = r
        for cell in self._span(r):
            for a0, b0, a1, b1 in self._cells.get(cell, ()):
                if x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1:
                    return True
        return False


def place_count_labels(bundles: Iterable, boxes: Iterable[QRectF]) -> int:
    """Give every bundle with a count a free position along its wire, or none.

    `bundles` are `BundleItem`s (`count`, `key`, `point_at(t)`, `set_label_t(t | None)`);
    `boxes` the scene rectangles of the visible device and collapsed-group boxes. Returns how
    many pills were placed.
    """
    taken = _Occupied()
    for box in boxes:
        taken.add((box.left(), box.top(), box.right(), box.bottom()))
    counted = []
    for bundle in bundles:
        if bundle.count > 1:
            counted.append(bundle)
        else:
            bundle.set_label_t(None)
    counted.sort(key=lambda b: (-b.count, sorted(b.key)))
    placed = 0
    for bundle in counted:
        w, h = pill_size(bundle.count)
        chosen = None
        for t in CANDIDATES:
            p = bundle.point_at(t)
            rect = (p.x() - w / 2 - GAP, p.y() - h / 2 - GAP, p.x() + w / 2 + GAP,
                    p.y() + h / 2 + GAP)
            if not taken.hits(rect):
                taken.add(rect)
                chosen = t
                break
        bundle.set_label_t(chosen)
        placed += chosen is not None
    return placed


def paint_count_labels(painter: QPainter, bundles: Iterable, exposed: QRectF) -> None:
    """Draw the placed pills (and a selected bundle's, placed or not) that meet `exposed`."""
    painter.setFont(style.font(6.5, True))
    white = QColor("white")
    for bundle in bundles:
        selected = bundle.isSelected()
        if bundle.count < 2 or (bundle.label_t is None and not selected):
            continue
        p = bundle.point_at(0.5 if bundle.label_t is None else bundle.label_t)
        w, h = pill_size(bundle.count)
        pill = QRectF(p.x() - w / 2, p.y() - h / 2, w, h)
        if not pill.intersects(exposed) or not bundle.isVisible():
            continue
        color = style.SELECTION if selected else style.protocol_color(bundle.protocol)
        painter.setPen(QPen(color, 1.5 if selected else 1.0))
        painter.setBrush(white)
        painter.drawRoundedRect(pill, h / 2, h / 2)
        painter.setPen(style.TEXT)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, f"×{bundle.count}")
