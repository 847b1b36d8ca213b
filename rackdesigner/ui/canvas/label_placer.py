"""`LabelPlacer`: places the canvas's screen-size names one by one, never on top of one another
and covering no aggregate block or box (ui/canvas/names.py decides which names and in what
form; this keeps the ones placed, bucketed by screen cell, and finds a free spot).
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.ui.canvas.name_forms import short_forms

LABEL_PAD = 3
BLOCK_EDGE = 4  # px of a block a frame's name may cover


class LabelPlacer:
    """Places labels one by one, never on top of one another (see `place_labels`)."""

    CELL = 64  # px: labels placed are bucketed by cell

    def __init__(self, view: QGraphicsView, boxes: list[QRect],
                 blocks: list[QRect] | None = None) -> None:
        self.viewport = view.viewport().rect()
        self.boxes = boxes
        self.blocks = blocks or []  # blocks and boxes: a frame's name covers none of them
        self._cells: dict[tuple[int, int], list[QRect]] = {}

    def _span(self, rect: QRect):
        c = self.CELL
        for x in range(rect.left() // c, rect.right() // c + 1):
            for y in range(rect.top() // c, rect.bottom() // c + 1):
                yield x, y

    def add(self, rect: QRect) -> None:
        for cell in self._span(rect):
            self._cells.setdefault(cell, []).append(rect)

    def hit(self, rect: QRect) -> QRect | None:
        """A placed label `rect` overlaps, if any."""
        for cell in self._span(rect):
            for placed in self._cells.get(cell, ()):
                if rect.intersects(placed):
                    return placed
        return None

    def free(self, rect: QRect, own: QRect | None = None) -> bool:
        """On screen, over no label, and (for a name reaching outside its own box) over no
        other group's box but those holding it or held by it."""
        if not self.viewport.contains(rect) or self.hit(rect) is not None:
            return False
        if own is None or own.contains(rect):
            return True
        return not any(rect.intersects(b) for b in self.boxes  # but its own and around it
                       if b != own and not b.contains(own) and not own.contains(b))

    def clear(self, rect: QRect, frame: QRect) -> bool:
        """A frame's name over none of the blocks or collapsed boxes it holds but their edge,
        when it holds several (a pod's name over its first SU took the place of that SU's
        own name; an SU's hid two of its four NVL72 racks); over its only one it stands for
        it (the spine tier's one rack)."""
        held = [b for b in self.blocks if frame.contains(b)]
        if len(held) < 2:
            return True
        for block in held:
            over = rect.intersected(block)
            if over.width() > BLOCK_EDGE and over.height() > BLOCK_EDGE:
                return False
        return True

    def corner(self, box: QRect, width: int, height: int) -> QRect | None:
        """The box's top-left corner (kept on screen), or under the names already there."""
        rect = QRect(max(box.left() + 2, 2), max(box.top() + 2, 2), width, height)
        for _ in range(4):
            hit = self.hit(rect)
            if hit is None:
                break
            below = QRect(rect)
            below.moveTop(hit.bottom() + 2)
            if box.contains(below):
                rect = below
            else:  # no room under it: beside it, on the same line
                rect.moveLeft(hit.right() + 4)
        if not box.contains(rect) or not self.free(rect):
            return None
        return rect

    def beside(self, box: QRect, label: str, metrics: QFontMetrics, height: int
               ) -> tuple[QRect, str] | None:
        """Right of (or else left of) a block too small for its name, clear of the other
        names — and of the other blocks where there is room, else over their edge in the
        shortest form (covering as little of a neighbour as it can)."""
        forms = [label, *short_forms(label)]
        for strict in (True, False):
            if not strict:
                forms.sort(key=metrics.horizontalAdvance)
            for text in forms:
                width = metrics.horizontalAdvance(text) + 2 * LABEL_PAD
                if width > 220 + 2 * LABEL_PAD:
                    continue
                for left in (box.right() + 6, box.left() - 6 - width):
                    rect = QRect(left, box.center().y() - height // 2, width, height)
                    if self.free(rect, box if strict else None):
                        return rect, text
        return None
