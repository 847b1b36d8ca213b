"""Readable exported images: the scale an image is drawn at, and labels on its blocks.

On the canvas the view writes a block's name and counts at screen size (`canvas/overlay.py`); an
image has no view, so a 1,000-GPU design exported at the 8,000-px cap was tiles with no text, or
8-px text on mostly empty areas (issue 38 item 9). Here:

- `legible_scale`: the scale at which the canvas's own 8-pt labels are LABEL_MIN_PX tall, the
  least an image is drawn at when it fits under the pixel cap;
- `image_level`: a design too large for that under the cap is drawn as the far zoom's blocks (one
  per scalable unit and switch tier), which fill the frame, instead of tiny boxes;
- `block_labels` / `paint_block_labels`: every block and collapsed box of the image gets its name
  and counts, sized to the block and never below LABEL_MIN_PX.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from rackdesigner.ui import style
from rackdesigner.ui.canvas.group_item import GroupItem
from rackdesigner.vocabulary.wording import counted

#: the smallest text an image carries, in pixels: readable at 100 % zoom in an image viewer
#: (a model assumption: 12 px is the size of a browser's small body text)
LABEL_MIN_PX = 12.0
#: a label's largest size in pixels (a block the size of a screen keeps a heading, not a poster)
LABEL_MAX_PX = 72.0
#: the canvas's label size in points (`group_item`, `items`), drawn at 96 dpi into an image
CANVAS_LABEL_PT = 8.0
_PX_PER_PT = 96 / 72


def legible_scale() -> float:
    """Image pixels per canvas unit at which the canvas's labels are LABEL_MIN_PX tall."""
    return LABEL_MIN_PX / (CANVAS_LABEL_PT * _PX_PER_PT)


@dataclass(frozen=True)
class BlockLabel:
    lines: tuple[str, ...]
    rect: QRectF  # image pixels
    px: float  # the first line's pixel size (the others are 0.8 of it)


def _lines(item: GroupItem) -> tuple[str, ...]:
    if item.block and item.stats is not None:
        return (item.label, item.stats.text())
    return (item.label, f"{item.kind} · {counted(item.device_count, 'device')}")


def _font(px: float, bold: bool = False) -> QFont:
    font = style.font(8, bold)
    font.setPixelSize(max(1, round(px)))
    return font


def block_labels(items, source: QRectF, target: QRectF) -> list[BlockLabel]:
    """The labels of the collapsed groups and blocks among `items` drawn from scene rect
    `source` into image rect `target`: each as large as its block allows (up to LABEL_MAX_PX),
    none below LABEL_MIN_PX; a block too narrow for even that is left unlabelled."""
    sx = target.width() / max(source.width(), 1e-9)
    sy = target.height() / max(source.height(), 1e-9)
    s = min(sx, sy)  # KeepAspectRatio: centred in target
    ox = target.left() + (target.width() - source.width() * s) / 2
    oy = target.top() + (target.height() - source.height() * s) / 2
    out = []
    for item in items:
        if not isinstance(item, GroupItem) or not item.collapsed or not item.isVisible():
            continue
        frame = item.frame_rect()
        rect = QRectF(ox + (frame.left() - source.left()) * s,
                      oy + (frame.top() - source.top()) * s, frame.width() * s,
                      frame.height() * s).adjusted(4, 4, -4, -4)
        lines = _lines(item)
        widest = max(QFontMetricsF(_font(100, True)).horizontalAdvance(t) for t in lines) / 100
        px = min(LABEL_MAX_PX, rect.height() / 2.6, rect.width() / max(widest, 1e-9))
        if px < LABEL_MIN_PX:
            if rect.width() < 6 * LABEL_MIN_PX:
                continue
            px = LABEL_MIN_PX  # elided to the block's width
        out.append(BlockLabel(lines, rect, px))
    return out


def paint_block_labels(painter: QPainter, labels: list[BlockLabel]) -> None:
    painter.save()
    for label in labels:
        y = label.rect.top() + max(0.0, (label.rect.height() - label.px * 2.3) / 2)
        for n, text in enumerate(label.lines):
            px = label.px if n == 0 else label.px * 0.8
            font = _font(px, n == 0)
            painter.setFont(font)
            line = QRectF(label.rect.left(), y, label.rect.width(), px * 1.3)
            fitted = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight,
                                                    line.width())
            # a light halo keeps the text readable over wires drawn across the block
            painter.setPen(QColor(255, 255, 255, 220))
            for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                painter.drawText(line.translated(dx, dy), Qt.AlignmentFlag.AlignCenter, fitted)
            painter.setPen(style.TEXT if n == 0 else style.TEXT_DIM)
            painter.drawText(line, Qt.AlignmentFlag.AlignCenter, fitted)
            y += px * 1.3
    painter.restore()


__all__ = ["LABEL_MIN_PX", "BlockLabel", "block_labels", "legible_scale",
           "paint_block_labels"]
