"""The title and legend band at the top of an exported image (File ▸ Export Image, `render`).

An image of a large design is thousands of pixels of boxes: shared on its own it must say what
it shows. The band gives the design's name and GPU count, then a legend of the device kinds in
the design (each kind's canvas colour and count) and of the link types its links carry (the
protocol colours the wires are drawn in). It is sized to the image's width, so it stays
readable when a wide image is viewed whole.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from rackdesigner import vocabulary
from rackdesigner.model import Layout
from rackdesigner.ui import style
from rackdesigner.vocabulary.wording import counted

#: the legend's text height as a share of the image width, and its bounds in pixels
UNIT_SHARE = 1 / 90
MIN_UNIT, MAX_UNIT = 13.0, 120.0


@dataclass(frozen=True)
class Entry:
    text: str
    color: QColor
    line: bool  # a link type (drawn as a line), else a device kind (a square)


@dataclass(frozen=True)
class Banner:
    title: str
    entries: tuple[Entry, ...]


def banner_for(layout: Layout) -> Banner:
    """The design's title ("Name — 1,024 GPUs") and legend entries, most common kind first."""
    kinds: Counter[str] = Counter()
    gpus = 0
    for device in layout.devices():
        spec = layout.catalog.get(device.model) if device.model in layout.catalog else None
        if spec is None:
            continue
        kinds[spec.kind] += 1
        gpus += bool(spec.traits.computes)
    entries = []
    for kind, n in kinds.most_common():
        entry = vocabulary.KINDS.get(kind)
        if entry is None or kind not in style.KIND_COLORS:
            continue  # never drawn alone (cables, chassis)
        entries.append(Entry(counted(n, entry.label, entry.plural), style.KIND_COLORS[kind],
                             False))
    for protocol, n in _protocols(layout).most_common():
        label = style.PROTOCOL_LABELS.get(protocol, protocol)
        entries.append(Entry(f"{label} {'link' if n == 1 else 'links'}",
                             style.protocol_color(protocol), True))
    name = layout.meta.name or "RackDesigner layout"
    return Banner(f"{name} — {counted(gpus, 'GPU')}", tuple(entries))


def _protocols(layout: Layout) -> Counter[str]:
    """Links by the protocol of their a end's port group (the colour a wire is drawn in)."""
    out: Counter[str] = Counter()
    index = layout.index()
    table = index.link_table()
    if table is not None:
        import numpy as np

        codes = table.proto_a[table.proto_a >= 0]
        for code, n in enumerate(np.bincount(codes, minlength=len(table.protocols)).tolist()):
            if n:
                out[table.protocols[code]] += n
        return out
    for link in layout.links():
        group = index.port_group(link.a.device, link.a.group)
        if group is not None:
            out[group.protocol] += link.count
    return out


def _font(px: float, bold: bool = False) -> QFont:
    font = style.font(8, bold)
    font.setPixelSize(max(1, round(px)))
    return font


def banner_height(banner: Banner, width: float) -> float:
    """The band's height for an image `width` pixels wide (the legend wrapped to it)."""
    unit = _unit(width)
    return unit * 2.6 + len(_rows(banner, width, unit)) * unit * 1.6 + unit * 0.6


def _unit(width: float) -> float:
    return min(MAX_UNIT, max(MIN_UNIT, width * UNIT_SHARE))


def _rows(banner: Banner, width: float, unit: float) -> list[list[tuple[Entry, float]]]:
    """The legend entries flowed into rows: (entry, its width) per row."""
    metrics = QFontMetricsF(_font(unit))
    rows: list[list[tuple[Entry, float]]] = [[]]
    x = 0.0
    usable = width - 2 * unit
    for entry in banner.entries:
        w = unit * 1.6 + metrics.horizontalAdvance(entry.text) + unit * 1.5
        if rows[-1] and x + w > usable:
            rows.append([])
            x = 0.0
        rows[-1].append((entry, w))
        x += w
    return rows if rows[0] else []


def paint_banner(painter: QPainter, banner: Banner, rect: QRectF) -> list[QRectF]:
    """Draw the band into `rect` (image pixels); returns the rects of its texts (tests)."""
    unit = _unit(rect.width())
    drawn = []
    painter.save()
    painter.fillRect(rect, QColor("#ffffff"))
    painter.setPen(style.TEXT)
    painter.setFont(_font(unit * 1.4, True))
    title = QRectF(rect.left() + unit, rect.top() + unit * 0.5, rect.width() - 2 * unit,
                   unit * 2.0)
    text = QFontMetricsF(painter.font()).elidedText(banner.title, Qt.TextElideMode.ElideRight,
                                                    title.width())
    painter.drawText(title, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
    drawn.append(title)
    painter.setFont(_font(unit))
    y = rect.top() + unit * 2.6
    for row in _rows(banner, rect.width(), unit):
        x = rect.left() + unit
        for entry, w in row:
            mark = QRectF(x, y + unit * 0.35, unit * 1.1, unit * 0.9)
            if entry.line:
                painter.fillRect(QRectF(mark.left(), mark.center().y() - unit * 0.12,
                                        mark.width(), unit * 0.24), entry.color)
            else:
                painter.fillRect(mark, entry.color)
            painter.setPen(style.TEXT)
            label = QRectF(x + unit * 1.6, y, w - unit * 1.6, unit * 1.6)
            painter.drawText(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             entry.text)
            drawn.append(label)
            x += w
        y += unit * 1.6
    painter.restore()
    return drawn


__all__ = ["Banner", "Entry", "banner_for", "banner_height", "paint_banner"]
