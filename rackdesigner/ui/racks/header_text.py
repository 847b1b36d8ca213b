"""The text of a rack's header (the racks view and its printed elevations), fitted to the
rack's column.

Fonts are sized in scene units (pixel sizes), never in points: a point size grows with the
paint device's resolution, so on a 150-dpi PDF page the header's text came out half again as
large as on screen, the name was clipped ("SU1 compute ra") and the lines ran into each other.
Each line keeps its size while it fits; a longer one is drawn smaller, down to `MIN_PX`, and
only then cut with an ellipsis at a character boundary (the full text is in the rack's
tooltip).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPaintDevice

from rackdesigner.ui import style
from rackdesigner.ui.canvas.name_forms import short_forms

NAME_PX = 11  # the rack's name (8 pt at 96 dpi, as drawn before)
LINE_PX = 9  # the figures' lines (6.5 pt at 96 dpi)
MIN_PX = 7
NAME_H = 14.0
LINE_H = 12.0
#: the room a header's text has: the rack's width and part of the gap to the next rack
EXTRA_W = 40.0


@dataclass(frozen=True)
class HeaderLine:
    rect: QRectF
    font: QFont
    text: str


def pixel_font(px: int, bold: bool = False) -> QFont:
    font = style.font(8, bold)
    font.setPixelSize(px)
    return font


def scene_font(points: float, bold: bool = False) -> QFont:
    """The font `points` would be on a 96-dpi screen, sized in scene units: the same on
    screen, in a PNG and on a PDF page of any resolution."""
    return pixel_font(max(1, round(points * 96 / 72)), bold)


def fit(text: str, px: int, width: float, bold: bool = False,
        device: QPaintDevice | None = None) -> tuple[QFont, str]:
    """(font, text) that fits `width` scene units: the size lowered down to `MIN_PX`, then the
    text elided. `device` is the paint device (its metrics are the ones that count)."""
    size = px
    while True:
        font = pixel_font(size, bold)
        metrics = QFontMetricsF(font, device) if device is not None else QFontMetricsF(font)
        if metrics.horizontalAdvance(text) <= width or size <= MIN_PX:
            break
        size -= 1
    if metrics.horizontalAdvance(text) > width:
        text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
    return font, text


def header_lines(name: str, lines: list[str], width: float, top: float,
                 device: QPaintDevice | None = None) -> list[HeaderLine]:
    """The name, then each line, laid out from `top` down, each in its own band."""
    font, text = fit(name, NAME_PX, width, True, device)
    out = [HeaderLine(QRectF(0, top, width, NAME_H), font, text)]
    y = top + NAME_H + 1
    for line in lines:
        font, text = fit(line, LINE_PX, width, False, device)
        out.append(HeaderLine(QRectF(0, y, width, LINE_H), font, text))
        y += LINE_H
    return out


def far_size(text: str, lod: float, width: float) -> float:
    """The pixel size of a rack's name far out: 8 px on screen, at most 48, within `width`."""
    return min(48.0, 8.0 / max(lod, 0.05), width / (0.62 * max(1, len(text))))


def far_name(label: str, lod: float, width: float) -> str:
    """A rack's name far out: the label, else its first short form (as the canvas writes it)
    readable at `lod` (7 px on screen), else its number, else its shortest form."""
    forms = [label, *short_forms(label)]
    readable = next((t for t in forms if far_size(t, lod, width) * lod >= 7), None)
    if readable is not None:
        return readable
    digits = re.search(r"\d+$", label)
    return digits.group() if digits is not None else min(forms, key=len)


__all__ = ["EXTRA_W", "HeaderLine", "far_name", "far_size", "fit", "header_lines", "pixel_font",
           "scene_font"]
