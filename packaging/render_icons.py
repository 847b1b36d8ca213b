"""Render the application icon's PNG sizes from resources/icons/rackdesigner.svg.

Run after editing the SVG (the PNGs are committed, so builds need no SVG renderer):

    QT_QPA_PLATFORM=offscreen python3 packaging/render_icons.py

Qt's own SVG renderer (QtSvg, part of PySide6-Essentials) draws them, so no extra tool is needed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        out = svg.with_name(f"{svg.stem}-{size}.png")
        if not image.save(str(out), "PNG"):
            raise SystemExit(f"could not write {out}")
        written.append(out)
    return written


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in render(ICONS / "rackdesigner.svg"):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
