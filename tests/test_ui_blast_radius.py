"""The blast radius on the canvas (issue 37): with "Show blast radius of the selection" checked
in the Reliability tab, selecting a part marks on the canvas the GPUs its fault stops and the
status bar says how many — a GB200 compute tray its rack's 72, a DGX H100 node its 8 — and
unchecking, or selecting a part that stops no GPU, clears the mark."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def _example(name: str):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


def _window(qtbot, tmp_path, name):
    from designer_fixtures import large_design_window
    from PySide6.QtCore import Qt

    window = large_design_window(qtbot, tmp_path, _example(name))
    panel = window.simulation_panel
    panel.tabs.setCurrentWidget(panel.reliability_tab)
    tab = panel.reliability_tab
    tab.flush()
    assert tab.assessment() is not None
    qtbot.mouseClick(tab.blast_check, Qt.MouseButton.LeftButton)
    assert tab.blast_check.isChecked()
    return window, tab


def _select(window, ids):
    window.editor.select_ids(ids)
    window.flush()


def _marked_gpus(window):
    """The GPU ids drawn with the mark: devices marked, or inside a marked collapsed group."""
    scene = window.scene
    layout = window.document.layout
    drawn = set()
    for item in scene.blast_items():
        if hasattr(item, "device_id"):
            drawn.add(item.device_id)
        else:
            drawn.update(layout.group_devices(item.group_id))
    return {d for d in drawn if layout.spec(d).traits.computes}


def _mark_pixels(window) -> int:
    """Pixels of the canvas near the mark's colour."""
    from PySide6.QtGui import QColor

    from rackdesigner.ui.canvas.blast_marks import BLAST

    image = window.view.viewport().grab().toImage()

    def near(x: int, y: int) -> bool:
        c = QColor(image.pixel(x, y))
        return (abs(c.red() - BLAST.red()) + abs(c.green() - BLAST.green())
                + abs(c.blue() - BLAST.blue())) < 40

    return sum(1 for y in range(0, image.height(), 2) for x in range(0, image.width(), 2)
               if near(x, y))


def test_the_mark_is_told_apart_from_every_kind_colour():
    """A marked GPU must not look like a NIC or a DPU (both orange): the mark's colour is far
    from every kind's accent."""
    from rackdesigner.ui import style
    from rackdesigner.ui.canvas.blast_marks import BLAST

    for kind, color in style.KIND_COLORS.items():
        distance = (abs(color.red() - BLAST.red()) + abs(color.green() - BLAST.green())
                    + abs(color.blue() - BLAST.blue()))
        assert distance > 120, kind


def test_a_gb200_compute_tray_marks_its_racks_72_gpus(qtbot, tmp_path):
    window, tab = _window(qtbot, tmp_path, "gb200-nvl72.yaml")
    layout = window.document.layout
    tray = next(g.id for g in layout.groups()
                if any(layout.spec(d).traits.computes for d in layout.group_devices(g.id))
                and len(layout.group_devices(g.id)) < 20)  # a compute tray, not the rack
    _select(window, [tray])
    gpus = {d.id for d in layout.devices() if layout.spec(d.id).traits.computes}
    assert len(gpus) == 72
    assert window.scene.blast_devices == gpus
    assert _marked_gpus(window) == gpus
    status = window.statusBar().currentMessage()
    assert status.startswith("A fault here stops 72 GPUs (NVLink domain")
    assert "<b>72</b> GPUs" in tab.part.text()
    # a CPU of the tray: its 4 GPUs only
    cpu = next(d for d in layout.group_devices(tray) if tab.assessment().structure.role_of(d)
               == "cpu")
    _select(window, [cpu])
    assert len(window.scene.blast_devices) == 4 == len(_marked_gpus(window))
    marked = _mark_pixels(window)
    # unchecked: no mark, its colour gone from the screen
    tab.blast_check.setChecked(False)
    assert window.scene.blast_devices == frozenset() and not window.scene.blast_items()
    unmarked = _mark_pixels(window)
    assert marked > unmarked
    tab.blast_check.setChecked(True)  # checked again: the same selection's mark comes back
    assert len(window.scene.blast_devices) == 4 and _mark_pixels(window) == marked


def test_a_dgx_node_marks_its_8_gpus_and_a_leaf_every_node_on_it(qtbot, tmp_path):
    window, tab = _window(qtbot, tmp_path, "dgx-h100-2node-ib.yaml")
    layout = window.document.layout
    computes = {d.id for d in layout.devices() if layout.spec(d.id).traits.computes}
    assert len(computes) == 16
    node = layout.device(sorted(computes)[0]).group
    _select(window, [node])
    marked = _marked_gpus(window)
    assert len(window.scene.blast_devices) == 8 == len(marked)
    assert marked == computes & set(layout.group_devices(node))
    assert window.statusBar().currentMessage().startswith("A fault here stops 8 GPUs")
    leaf = next(d.id for d in layout.devices()
                if tab.assessment().structure.role_of(d.id) == "switch")
    _select(window, [leaf])
    assert window.scene.blast_devices == computes  # both nodes are cabled to it
    other = next(d.id for d in layout.devices() if tab.assessment().structure.role_of(d.id)
                 is None)  # a rack, a chassis: no failure rate counted on it
    _select(window, [other])  # nothing marked
    assert window.scene.blast_devices == frozenset()
    assert "no failure rate" in tab.part.text()
