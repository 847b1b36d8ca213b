"""File ▸ Export Image of a large design carries a title and a legend (issue 38 item 9b): a 1k
design was 8,000 px of unlabelled boxes with no name, no GPU count and no key to its colours."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def _exported(qtbot, tmp_path, monkeypatch, suffix=".png"):
    from designer_fixtures import large_design_window
    from PySide6.QtWidgets import QFileDialog

    from rackdesigner.generators import generate

    layout = generate("superpod", system="dgx-b200", sus=1)
    window = large_design_window(qtbot, tmp_path, layout)
    out = tmp_path / f"pod{suffix}"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(out), "")))
    assert window.files.export_image_dialog()
    return window, out


def _count(image, rect, color) -> int:
    rgb = color.rgb() & 0xFFFFFF
    step = 2
    return sum(1 for y in range(int(rect.top()), int(rect.bottom()), step)
               for x in range(int(rect.left()), int(rect.right()), step)
               if image.pixel(x, y) & 0xFFFFFF == rgb)


def test_the_png_has_a_title_band_with_the_gpu_count_and_a_legend(qtbot, tmp_path,
                                                                  monkeypatch):
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage

    from rackdesigner.ui import style
    from rackdesigner.ui.export import design_rect
    from rackdesigner.ui.export_banner import banner_for, banner_height

    window, out = _exported(qtbot, tmp_path, monkeypatch)
    layout = window.document.layout
    banner = banner_for(layout)
    gpus = sum(1 for d in layout.devices() if layout.spec(d.id).traits.computes)
    assert gpus > 0 and f"{gpus:,} GPUs" in banner.title
    assert layout.meta.name in banner.title
    texts = [e.text for e in banner.entries]
    assert f"{gpus:,} GPUs" in texts
    assert any(t.startswith("InfiniBand") for t in texts)
    assert any(t.startswith("NVLink") for t in texts)

    image = QImage(str(out))
    source = design_rect(window.scene)
    band = int(banner_height(banner, image.width()))
    assert band > 0
    # the drawing below keeps the design's proportions; the band is on top of it
    assert image.height() - band == pytest.approx(
        image.width() * source.height() / source.width(), abs=3)
    top = QRectF(0, 0, image.width(), band)
    assert _count(image, top, style.KIND_COLORS["gpu"]) > 20  # the GPU swatch
    assert _count(image, top, style.protocol_color("infiniband")) > 5  # the link line
    assert _count(image, top, style.TEXT) > 50  # the title's text
    # readable when the image is viewed whole on a 1,600-px-wide screen: at least ~8 px
    assert band / (image.width() / 1600) > 40


def test_the_svg_has_the_title_too(qtbot, tmp_path, monkeypatch):
    window, out = _exported(qtbot, tmp_path, monkeypatch, ".svg")
    text = out.read_text()
    assert window.document.layout.meta.name.split(",")[0] in text
    assert "GPUs" in text
