"""Rack headers fit their column on screen and on the printed elevations (issue 38 item 9a):
the PDF clipped every name ("SU1 compute ra") and its lines ran into each other, because
the header's point-sized fonts grew with the PDF's resolution."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("pytestqt")

LONG = "SU1 compute rack 01 — hall B, row 3, position 12"


def _item(qapp, **changes):
    from rackdesigner.generators import generate
    from rackdesigner.ui.racks.scene import RacksScene

    layout = generate("superpod", system="dgx-b200", sus=1)
    scene = RacksScene(per_row=6)
    scene.set_layout(layout)
    item = scene.item_for_rack[scene.rack_order[0]]
    item.summary = dataclasses.replace(item.summary, **changes)
    return scene, item


def _pdf(dpi):
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QPdfWriter

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(dpi)
    return writer, buffer


@pytest.mark.parametrize("dpi", [96, 150, 300])
def test_every_header_line_fits_the_column_on_a_pdf_page(qapp, dpi):
    from PySide6.QtGui import QFontMetricsF

    _scene, item = _item(qapp, label=LONG, power_missing=3)
    writer, buffer = _pdf(dpi)
    lines = item.header_lines(writer)
    bounds = item.boundingRect()
    for i, line in enumerate(lines):
        metrics = QFontMetricsF(line.font, writer)
        assert metrics.horizontalAdvance(line.text) <= line.rect.width() + 0.5, line.text
        assert metrics.height() <= line.rect.height() + 1.5, (line.text, metrics.height())
        assert bounds.contains(line.rect)  # painted inside the item: no stale glyphs
        if i:
            assert line.rect.top() >= lines[i - 1].rect.bottom()  # no overlap
    name = lines[0].text
    assert name == LONG or (name.endswith("…") and LONG.startswith(name[:-1])
                            and len(name) > len("SU1 compute ra") + 1)
    power = next(line.text for line in lines if "kW" in line.text and "typ" in line.text)
    assert power.startswith("≥ ")
    # the same size at every resolution: the page shows what the screen shows
    sizes = [line.font.pixelSize() for line in lines]
    screen = [line.font.pixelSize() for line in item.header_lines()]
    assert sizes == screen
    buffer.close()


def test_a_short_name_is_drawn_whole(qapp):
    _scene, item = _item(qapp, label="r1")
    writer, buffer = _pdf(150)
    assert item.header_lines(writer)[0].text == "r1"
    buffer.close()


def test_the_elevation_pdf_is_written(qapp, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.ui.racks.export import render_racks

    out = render_racks(generate("superpod", system="dgx-b200", sus=1), tmp_path / "e.pdf")
    assert out.read_bytes().startswith(b"%PDF")
