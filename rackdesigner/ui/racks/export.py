"""Printable rack elevations: SVG, PNG or a multi-page PDF (several racks per page).

Drawn by the racks view's own items in a print layout (racks in id order, `PER_ROW` a row), so
what a site team prints is what the designer shows. Output is written atomically.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import QApplication

from rackdesigner.io.atomic import write_bytes
from rackdesigner.io.sanitize import xml_document
from rackdesigner.model import Layout
from rackdesigner.ui import style
from rackdesigner.ui.racks.scene import RacksScene

PER_ROW = 8  # racks side by side in an SVG/PNG
PER_PAGE = 6  # racks on one landscape A3 page
MAX_PIXELS = 12000
_APP: QApplication | None = None


def _ensure_app() -> None:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    global _APP
    _APP = QApplication.instance() or QApplication(sys.argv[:1])


def render_racks(layout: Layout, path: str | Path, face: str = "front",
                 per_page: int = PER_PAGE) -> Path:
    """Draw every rack's elevation to `path` (.svg, .png or .pdf); returns the path."""
    _ensure_app()
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".png", ".pdf"):
        raise ValueError(f"cannot draw {path.name}: use .svg, .png or .pdf")
    scene = RacksScene(per_row=per_page if suffix == ".pdf" else PER_ROW)
    scene.face = face
    scene.setBackgroundBrush(QColor("#ffffff"))  # paper
    scene.set_layout(layout)
    if not scene.rack_order:
        raise ValueError(f"{layout.source_path or 'the layout'} has no racks to draw")
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    title = f"{layout.meta.name or 'RackDesigner layout'} — rack elevations ({face})"
    if suffix == ".pdf":
        _pdf(scene, buffer, title, per_page)
    elif suffix == ".svg":
        from PySide6.QtSvg import QSvgGenerator

        source = scene.itemsBoundingRect().adjusted(-20, -20, 60, 20)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(QSize(int(source.width()), int(source.height())))
        generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
        generator.setTitle(title)
        painter = QPainter(generator)
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
        painter.end()
    else:
        source = scene.itemsBoundingRect().adjusted(-20, -20, 60, 20)
        scale = min(2.0, MAX_PIXELS / max(source.width(), source.height()))
        image = QImage(QSize(int(source.width() * scale), int(source.height() * scale)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor("#ffffff"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        scene.render(painter, QRectF(0, 0, image.width(), image.height()), source)
        painter.end()
        if not image.save(buffer, "PNG"):
            raise OSError(f"cannot encode {path.name} as PNG")
    svg = suffix == ".svg"  # Qt writes a name's control characters raw: mapped, well-formed
    write_bytes(path, xml_document(bytes(data.data())) if svg else bytes(data.data()))
    return path


def _pdf(scene: RacksScene, buffer: QBuffer, title: str, per_page: int) -> None:
    writer = QPdfWriter(buffer)
    writer.setTitle(title)
    writer.setCreator("RackDesigner")
    writer.setResolution(150)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A3),
                                     QPageLayout.Orientation.Landscape, QMarginsF(10, 10, 10, 10),
                                     QPageLayout.Unit.Millimeter))
    painter = QPainter(writer)
    order = scene.rack_order
    pages = [order[i:i + per_page] for i in range(0, len(order), per_page)]
    width, height = writer.width(), writer.height()
    head = int(height * 0.05)
    for n, racks in enumerate(pages):
        if n:
            writer.newPage()
        painter.setPen(QColor("#1f2933"))
        painter.setFont(style.font(11, True))
        painter.drawText(QRectF(0, 0, width, head), Qt.AlignmentFlag.AlignLeft
                         | Qt.AlignmentFlag.AlignVCenter, title)
        painter.setFont(style.font(9))
        painter.drawText(QRectF(0, 0, width, head), Qt.AlignmentFlag.AlignRight
                         | Qt.AlignmentFlag.AlignVCenter, f"page {n + 1} of {len(pages)}")
        source = scene.racks_rect(racks)
        # same scale on every page: a page of PER_PAGE racks fills the width
        target = QRectF(0, head, width, height - head)
        scene.render(painter, target, source, Qt.AspectRatioMode.KeepAspectRatio)
    painter.end()
