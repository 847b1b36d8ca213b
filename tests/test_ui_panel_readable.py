"""Headline figures and the baseline label are readable at every dock width the panel allows,
with a baseline shown and the notes expanded; a baseline pinned on one design says so when
another design is opened (issue 13, item 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rackdesigner._resources import example_paths


def _example(name: str):
    return next(p for p in example_paths() if p.name == name)


def _copy(name: str, folder) -> Path:
    """The example saved as the user's own file (bundled examples open as untitled copies)."""
    target = folder / name
    shutil.copyfile(_example(name), target)
    return target


@pytest.fixture
def window(qtbot, tmp_path):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert win.open_file(_copy("dgx-h100-2node-ib.yaml", tmp_path), ask=False)
    win.resize(1600, 1000)
    win.show()
    qtbot.waitExposed(win)
    win.simulation_panel.flush()
    return win


def _clipped(panel) -> list[str]:
    """Every headline text shown smaller than it needs, and a cut baseline label."""
    out = []
    for key, tile in panel.headline.tiles.items():
        for label in (tile.label, tile.value, tile.detail, tile.delta):
            if not label.isVisible():
                continue
            need = label.minimumSizeHint()
            if label.height() < need.height() or label.width() < need.width():
                out.append(f"{key}: {label.text()!r} {label.size().toTuple()} < "
                           f"{need.toTuple()}")
    label = panel.compare.label
    if label.isVisible() and label.height() < label.heightForWidth(label.width()):
        out.append(f"baseline label {label.text()!r}")
    return out


@pytest.mark.slow
def test_no_figure_is_clipped_at_any_dock_width(window, qtbot, tmp_path):
    panel = window.simulation_panel
    QTest.mouseClick(panel.compare.pin_button, Qt.MouseButton.LeftButton)
    assert panel.store.baseline is not None
    # four InfiniBand cables removed: every bandwidth tile shows a "vs baseline" delta
    ib = [lk.id for lk in window.document.layout.links()
          if "ib" in (lk.a.group + lk.b.group)][:4]
    window.editor.select_ids(ib)
    window.actions_.delete_action.trigger()
    panel.flush()
    assert panel.headline.deltas
    QTest.mouseClick(panel.notes_bar.notes_button, Qt.MouseButton.LeftButton)
    assert panel.notes_bar.notes_label.isVisible()
    narrowest = panel.minimumSizeHint().width()
    for width in (narrowest, narrowest + 40, 440, 560, 760):
        window.resizeDocks([window.simulation_dock], [width], Qt.Orientation.Horizontal)
        QApplication.processEvents()
        QApplication.processEvents()
        image = panel.grab()
        assert image.width() >= narrowest
        image.save(str(tmp_path / f"panel-{width}.png"))
        assert _clipped(panel) == [], f"at {panel.width()} px"
    text = panel.compare.label.text()
    assert "dgx-h100-2node-ib.yaml" in text and "pinned" in text


@pytest.mark.slow
def test_a_baseline_from_another_design_is_labelled_with_its_file(window, tmp_path):
    panel = window.simulation_panel
    assert panel.pin_baseline()
    assert "another design" not in panel.compare.label.text()
    assert window.open_file(_copy("dgx-h100.yaml", tmp_path), ask=False)
    panel.flush()
    text = panel.compare.label.text()
    assert "dgx-h100-2node-ib.yaml" in text and "another design" in text
    assert panel.compare.is_other_design()
    # the deltas say what they compare with: not "+6700 % vs baseline" but vs that file
    texts = [t.delta.text() for t in panel.headline.tiles.values() if t.delta.isVisible()]
    assert texts and all(t.endswith("vs dgx-h100-2node-ib.yaml") for t in texts)
    QTest.mouseClick(panel.compare.clear_button, Qt.MouseButton.LeftButton)
    assert not panel.compare.label.isVisible()


@pytest.mark.slow
def test_a_baseline_pinned_on_an_example_is_labelled_with_its_title(window):
    panel = window.simulation_panel
    assert window.open_file(_example("dgx-h100.yaml"), ask=False)  # an untitled copy
    panel.flush()
    assert panel.pin_baseline()
    title = window.document.untitled_title
    assert title and title in panel.compare.label.text()
