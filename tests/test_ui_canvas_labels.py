"""Readable canvas text: bundle count pills that never hide each other or a box, and model
names shortened before they are cut."""

from __future__ import annotations

import pytest
from designer_fixtures import make_window, small_layout
from PySide6.QtCore import QRectF, QSettings
from PySide6.QtGui import QFontMetrics, QImage, QPainter

from rackdesigner._resources import example_paths
from rackdesigner.ui import style
from rackdesigner.ui.canvas.items import short_title
from rackdesigner.ui.canvas.labels import pill_size


def _dgx_window(qtbot, tmp_path):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.open_file(next(p for p in example_paths() if p.name == "dgx-h100.yaml"), ask=False)
    window.scene.flush()
    return window


def _pill(bundle) -> QRectF:
    p = bundle.point_at(bundle.label_t)
    w, h = pill_size(bundle.count)
    return QRectF(p.x() - w / 2, p.y() - h / 2, w, h)


@pytest.mark.slow
def test_count_pills_of_a_dense_mesh_do_not_overlap(qtbot, tmp_path):
    window = _dgx_window(qtbot, tmp_path)
    scene = window.scene
    counted = [b for b in scene.bundles.values() if b.count > 1]
    assert len(counted) >= 32  # 8 GPUs x 4 NVSwitches, 4 or 5 NVLinks each
    placed = [b for b in counted if b.label_t is not None]
    assert len(placed) >= 0.5 * len(counted)  # the rest have no room: hover or select them
    pills = [_pill(b) for b in placed]
    for i, a in enumerate(pills):
        assert not any(a.intersects(b) for b in pills[i + 1:])
    boxes = [item.sceneBoundingRect() for item in scene.item_for_device.values()
             if item.isVisible()]
    assert not any(p.intersects(box) for p in pills for box in boxes)
    # midpoints alone would stack: several NVLink bundles share the same midpoint
    mids = {(round(b.midpoint().x()), round(b.midpoint().y())) for b in counted}
    assert len(mids) < len(counted)


@pytest.mark.slow
def test_pills_follow_edits_after_the_burst(qtbot, tmp_path):
    from rackdesigner.commands import MoveDevices

    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    scene = window.scene
    scene.flush()
    bundle = scene.bundles[frozenset(("gpu-1", "nvsw-1"))]  # two links
    assert bundle.label_t is not None
    # park a box on the pill: the pill moves along its wire (or gives way), never under it
    spot = bundle.point_at(bundle.label_t)
    window.document.push(MoveDevices({"gpu-2": ((200.0, 0.0), (spot.x() - 75, spot.y() - 28))}))
    scene.flush()
    box = scene.item_for_device["gpu-2"].sceneBoundingRect()
    assert bundle.label_t is None or not _pill(bundle).intersects(box)


@pytest.mark.slow
def test_pills_are_painted_over_the_wires(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    scene = window.scene
    scene.flush()
    bundle = scene.bundles[frozenset(("gpu-1", "nvsw-1"))]
    pill = _pill(bundle)
    image = QImage(200, 200, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 200, 200), pill.adjusted(-10, -10, 10, 10))
    painter.end()
    centre = image.pixelColor(100, 100)  # inside the white pill, between the glyphs
    assert centre.lightness() > 200, centre.name()


def test_long_model_names_drop_their_qualifier_before_being_cut(qapp):  # fonts need an app
    metrics = QFontMetrics(style.font(7.5, True))
    width = metrics.horizontalAdvance("NVSwitch (third gen")
    assert short_title("NVSwitch (third generation)", metrics, width) == "NVSwitch"
    assert short_title("H100 SXM5 80GB", metrics, 500) == "H100 SXM5 80GB"
    cut = short_title("PEX89144 PCIe Gen5 switch with a long name", metrics, width)
    assert cut.endswith("…") and metrics.horizontalAdvance(cut) <= width
