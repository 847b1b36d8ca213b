"""Images of the canvas: PNG and SVG, drawn by the same scene code the window shows.

An image carries a title band (the design's name and GPU count, a legend of its device kinds and
link types: `export_banner.py`). Images are drawn into memory and written with
`rackdesigner.io.atomic.write_bytes`, so a full disk or a crash never leaves a cut-off image
where a good one was.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from rackdesigner.analysis.heat import HeatMap
from rackdesigner.io.atomic import write_bytes
from rackdesigner.io.sanitize import xml_document
from rackdesigner.ui.canvas.scene import RackScene
from rackdesigner.ui.export_banner import banner_for, banner_height, paint_banner
from rackdesigner.ui.export_labels import block_labels, legible_scale, paint_block_labels

if TYPE_CHECKING:
    from rackdesigner.model import Layout

MAX_PIXELS = 8000
#: Past this many devices an image is drawn as the designer's far zoom: one block per scalable
#: unit and switch tier (`canvas/cells.py`), the links between two blocks as one bundle. In
#: detail every device is a graphics item: 21,666 devices (a 6,144-GPU SuperPOD) took 29 s and
#: 378 MB more memory to draw (about 17 KB per device), and a 100k-GPU design grew past 13 GB
#: without finishing (issue 31 §9); far out, that 21,666-device design takes about a second.
MAX_DRAWN_DEVICES = 20_000
#: Canvas units an image may span; a device is ~140 wide. Beyond this, drawing overflows.
MAX_EXTENT = 1e12
_APP: QApplication | None = None


def design_rect(scene: RackScene) -> QRectF:
    scene.flush()
    rect = QRectF()
    for item in scene.items():
        if item.isVisible() and item.parentItem() is None:
            rect = rect.united(item.sceneBoundingRect())
    if rect.isEmpty():
        rect = QRectF(0, 0, 400, 300)
    return rect.adjusted(-30, -30, 30, 30)


def export_image(scene: RackScene, path: str | Path, scale: float = 1.0,
                 titled: bool = True) -> Path:
    """Write the whole design to `path` (.png or .svg); returns the path. `titled`: a band on
    top with the design's name, GPU count and a legend of its device kinds and link types
    (`export_banner.py`). A PNG is drawn at least at `legible_scale` (the canvas's labels
    12 px tall) when that fits under MAX_PIXELS; blocks and collapsed boxes get their names
    and counts written on them at a readable size (`export_labels.py`)."""
    path = Path(path)
    layout = getattr(scene, "layout", None)
    banner = banner_for(layout) if titled and layout is not None else None
    source = design_rect(scene)
    extent = max(source.width(), source.height())
    if not extent < MAX_EXTENT:  # also catches inf and nan
        raise ValueError(f"cannot draw {path.name}: the design spans {extent:.3g} canvas units "
                         f"(at most {MAX_EXTENT:.0e}); a device is placed very far away")
    suffix = path.suffix.lower()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if suffix == ".svg":
        from PySide6.QtSvg import QSvgGenerator

        band = banner_height(banner, source.width()) if banner is not None else 0.0
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(QSize(int(source.width()), int(source.height() + band)))
        generator.setViewBox(QRectF(0, 0, source.width(), source.height() + band))
        generator.setTitle(banner.title if banner is not None else "RackDesigner layout")
        painter = QPainter(generator)
        if banner is not None:
            paint_banner(painter, banner, QRectF(0, 0, source.width(), band))
        target = QRectF(0, band, source.width(), source.height())
        scene.render(painter, target, source)
        paint_block_labels(painter, _labels(scene, source, target, 1.0))
        painter.end()
        # Qt writes a name's control characters raw: mapped, the drawing stays well-formed XML
        write_bytes(path, xml_document(bytes(data.data())))
        return path
    if suffix != ".png":
        raise ValueError(f"cannot export {path.name}: use .png or .svg")
    scale = max(scale, legible_scale())
    longest = max(source.width(), source.height()) * scale
    if longest > MAX_PIXELS:
        scale *= MAX_PIXELS / longest
    size = QSize(max(1, int(source.width() * scale)), max(1, int(source.height() * scale)))
    band = int(banner_height(banner, size.width())) if banner is not None else 0
    image = QImage(QSize(size.width(), size.height() + band),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(scene.backgroundBrush().color()))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    if banner is not None:
        paint_banner(painter, banner, QRectF(0, 0, size.width(), band))
    target = QRectF(0, band, size.width(), size.height())
    scene.render(painter, target, source, Qt.AspectRatioMode.KeepAspectRatio)
    paint_block_labels(painter, _labels(scene, source, target, scale))
    painter.end()
    if not image.save(buffer, "PNG"):
        raise OSError(f"cannot encode {path.name} as PNG")
    write_bytes(path, bytes(data.data()))
    return path


def _labels(scene: RackScene, source: QRectF, target: QRectF, scale: float):
    """The labels an image adds: on every block (the view writes those on the canvas), and on
    collapsed boxes too when the scene's own text is drawn too small to read."""
    items = [item for item in scene.items() if item.parentItem() is None]
    if scale < legible_scale():
        return block_labels(items, source, target)
    return block_labels([item for item in items if getattr(item, "block", False)], source,
                        target)


def image_level(layout: Layout, level: str) -> str:
    """`level` ("detail" or "overview"), or "far" when the design drawn device by device at a
    legible scale would pass MAX_PIXELS and it has three or more scalable units or tiers to
    draw as blocks: a 1,008-GPU NVL72 SuperPOD was 8,000 px of 8-px boxes on mostly empty
    areas; as blocks it fills the frame with a readable name and counts on each (issue 38
    item 9)."""
    if level == "far":
        return level
    xs = [d.pos[0] for d in layout.devices()]
    ys = [d.pos[1] for d in layout.devices()]
    if not xs:
        return level
    from rackdesigner.ui import style

    extent = max(max(xs) - min(xs) + style.DEVICE_WIDTH, max(ys) - min(ys))
    if extent * legible_scale() <= MAX_PIXELS:
        return level
    from rackdesigner.ui.canvas.cells import find_cells

    # one scalable unit (and its spine) as two blocks would say nothing: drawn device by device
    return "far" if len(find_cells(layout)) >= 3 else level


def drawn_level(layout: Layout, overview: bool = False) -> str:
    """The level of detail an image of `layout` is drawn at: "detail" (or "overview" when
    asked) up to MAX_DRAWN_DEVICES devices, "far" (aggregate blocks) past that. ValueError
    when even the blocks would leave more than MAX_DRAWN_DEVICES devices to draw one by one
    (a large design without scalable-unit, rack or fabric groups)."""
    count = layout.device_count()
    if count <= MAX_DRAWN_DEVICES:
        return "overview" if overview else "detail"
    from rackdesigner.ui.canvas.cells import find_cells

    inside: set[str] = set()
    for cell in find_cells(layout):
        inside.update(layout.group_devices(cell))
    loose = count - len(inside)
    if loose > MAX_DRAWN_DEVICES:
        raise ValueError(f"cannot draw {count:,} devices: {loose:,} of them are in no scalable "
                         f"unit, rack or fabric group to draw as a block, and an image draws at "
                         f"most {MAX_DRAWN_DEVICES:,} devices one by one (group them, or draw "
                         "a part of the design)")
    return "far"


def render_layout(layout: Layout, path: str | Path, scale: float = 1.0,
                  overview: bool = False, heat: tuple[str, int] | HeatMap | None = None,
                  level: str | None = None) -> Path:
    """Draw `layout` to a PNG or SVG file without a window (the `render` verb), at `level`
    (default: `drawn_level`, so a large design is drawn as blocks and fits in memory; a
    design too large to draw legibly device by device is drawn as blocks too: `image_level`).

    Uses the running QApplication or makes one; without a display, Qt's offscreen platform.
    """
    level = drawn_level(layout, overview) if level is None else level
    level = image_level(layout, level)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    global _APP
    _APP = QApplication.instance() or QApplication(sys.argv[:1])  # lives as long as the process
    far = _farthest_device(layout)
    if far is not None:
        line = layout.source_lines.get(far.id)
        where = f"{layout.source_path}:{line}: " if layout.source_path and line else ""
        raise ValueError(f"{where}device {far.id} is at {list(far.pos)}, too far away to draw "
                         f"(the image may span at most {MAX_EXTENT:.0e} canvas units)")
    return export_image(image_scene(layout, level, heat), path, scale=scale)


def image_scene(layout: Layout, level: str, heat: tuple[str, int] | HeatMap | None = None
                ) -> RackScene:
    """A scene of `layout` drawn at `level` ("detail", "overview" or "far"), for an image."""
    scene = RackScene()
    if level == "far":  # set before the layout: no device item is ever made inside a block
        scene.lazy = True
        scene.level = "far"
    scene.set_layout(layout)
    if level == "overview":
        scene.set_overview(True)
    if heat is not None:  # links coloured by utilisation under (collective, bytes) or a job's
        from rackdesigner.analysis.heat import heat_map

        scene.flush()
        scene.legend_in_scene = True
        scene.set_heat(heat if isinstance(heat, HeatMap) else heat_map(layout, heat[0], heat[1]))
    return scene


def _farthest_device(layout: Layout):
    """A device placed beyond half the drawable extent, or None."""
    for device in layout.devices():
        if max(abs(device.pos[0]), abs(device.pos[1])) >= MAX_EXTENT / 2:
            return device
    return None
