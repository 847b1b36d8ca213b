"""A shared image of a 1,000-GPU design is readable (issue 38 item 9): Export Image and `render`
of the 14-rack NVL72 SuperPOD and of the 1,024-GPU DGX B200 SuperPOD drew 8-px boxes and
tiles on a mostly empty 8,000-px canvas. Now the content fills the frame, every block carries
its name and counts at >= LABEL_MIN_PX, under the title and legend band."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture(scope="module")
def designs():
    from rackdesigner.generators import generate

    return {"nvl72": generate("superpod", system="gb200-nvl72", racks=14),
            "b200": generate("superpod", system="dgx-b200", sus=4)}


def _drawing(path, layout):
    """The PNG and the rect below its title band."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage

    from rackdesigner.ui.export_banner import banner_for, banner_height

    image = QImage(str(path))
    band = int(banner_height(banner_for(layout), image.width()))
    return image, QRectF(0, band, image.width(), image.height() - band)


def _text_pixels(image, rect) -> int:
    from rackdesigner.ui import style

    rgb = style.TEXT.rgb() & 0xFFFFFF
    return sum(1 for y in range(int(rect.top()), int(rect.bottom()), 2)
               for x in range(int(rect.left()), int(rect.right()), 2)
               if image.pixel(x, y) & 0xFFFFFF == rgb)


@pytest.mark.parametrize("name", ["nvl72", "b200"])
def test_render_of_a_1k_superpod_fills_the_image_with_named_blocks(qtbot, tmp_path, designs,
                                                                   name):
    from PySide6.QtCore import QRectF

    from rackdesigner.ui.canvas.group_item import GroupItem
    from rackdesigner.ui.export import design_rect, image_level, image_scene, render_layout
    from rackdesigner.ui.export_labels import LABEL_MIN_PX, block_labels

    layout = designs[name]
    assert layout.device_count() < 20_000  # not the "too many devices" rule: legibility
    out = render_layout(layout, tmp_path / f"{name}.png")
    image, drawing = _drawing(out, layout)
    assert image.width() <= 8000 and image.height() <= 9000

    level = image_level(layout, "detail")
    assert level == "far"
    scene = image_scene(layout, level)
    blocks = [i for i in scene.items() if isinstance(i, GroupItem) and i.block and i.isVisible()]
    sus = [b for b in blocks if "Scalable unit" in b.label]
    assert len(sus) == (2 if name == "nvl72" else 4)
    source = design_rect(scene)
    labels = block_labels(blocks, source, drawing)
    # every block is named, and its name is readable at 100 % zoom
    assert {lab.lines[0] for lab in labels} == {b.label for b in blocks}
    assert all(lab.px >= LABEL_MIN_PX for lab in labels)
    for su in (lab for lab in labels if lab.lines[0].startswith("Scalable unit")):
        assert su.px >= 2 * LABEL_MIN_PX
        assert "GPUs" in su.lines[1]
        assert _text_pixels(image, su.rect) > 50  # the name is drawn in the PNG
    # the drawn content covers most of the image: the blocks' union spans its width and height
    union = QRectF()
    for lab in labels:
        union = union.united(lab.rect)
    assert union.width() > 0.9 * drawing.width()
    assert union.height() > 0.85 * drawing.height()
    area = sum(lab.rect.width() * lab.rect.height() for lab in labels)
    assert area > 0.6 * drawing.width() * drawing.height()


def test_a_small_design_is_drawn_at_a_legible_scale(qtbot, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.ui.export import design_rect, image_level, image_scene, render_layout
    from rackdesigner.ui.export_labels import LABEL_MIN_PX, legible_scale

    layout = generate("dgx-b200")
    assert image_level(layout, "detail") == "detail"  # small enough to draw device by device
    out = render_layout(layout, tmp_path / "node.png", scale=0.5)
    _image, drawing = _drawing(out, layout)
    source = design_rect(image_scene(layout, "detail"))
    scale = drawing.width() / source.width()
    assert scale == pytest.approx(legible_scale(), rel=0.01)  # raised from 0.5
    assert 8 * 96 / 72 * scale >= LABEL_MIN_PX - 0.01  # the canvas's 8-pt labels, in pixels


def test_export_image_of_the_nvl72_superpod_names_its_blocks(qtbot, tmp_path, monkeypatch,
                                                             designs):
    """File ▸ Export Image in the designer: the same readable blocks, whatever the zoom."""
    from designer_fixtures import large_design_window
    from PySide6.QtWidgets import QFileDialog

    window = large_design_window(qtbot, tmp_path, designs["nvl72"])
    out = tmp_path / "pod.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(out), "")))
    assert window.files.export_image_dialog()
    image, drawing = _drawing(out, window.document.layout)
    assert image.width() > 2000
    top = drawing.adjusted(0, 0, 0, -drawing.height() * 0.5)
    assert _text_pixels(image, top) > 200  # "Scalable unit 1" and its counts, large
