"""File ▸ Compare With… on real widgets: the open design (unsaved edits included) against a
saved one, the winners marked in the table, the table saved, a bad file said."""

from __future__ import annotations

import csv

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # window-level GUI


def _window(qtbot, tmp_path, monkeypatch, nodes: int):
    """The designer on a rail-optimized DGX B200 design of `nodes` nodes, priced with the
    bundled book only."""
    from PySide6.QtCore import QSettings

    from rackdesigner.generators import generate
    from rackdesigner.ui import MainWindow

    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nodata"))
    layout = generate("rail-optimized", system="dgx-b200", nodes=nodes, switch="qm9700")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(w, before_close_func=lambda x: x.document.undo_stack.setClean())
    w._set_document(layout, None)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    return _window(qtbot, tmp_path, monkeypatch, 128)


def test_compare_with_a_saved_design_marks_the_winners(window, tmp_path, qtbot):
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    tapered = tmp_path / "tapered.yaml"
    save_layout(generate("rail-optimized", system="dgx-b200", nodes=128, switch="qm9700",
                         oversubscription=2), tapered)
    window.actions_.compare_action.trigger()
    dialog = window.compare_dialog
    assert dialog.isVisible()
    dialog.add_paths([str(tapered), str(tapered)])  # listed once
    assert dialog.paths() == [str(tapered)]
    dialog.run()
    comparison = dialog.flush()
    assert comparison is not None, dialog.status.text()
    assert dialog.table.columnCount() == 2 and dialog.table.rowCount() == len(comparison.rows)
    winners = dialog.winner_cells()
    assert winners["bisection_GBps"] == comparison.designs[0]  # the open, non-blocking design
    assert winners["all_to_all_busbw_GBps"] == comparison.designs[0]
    row = [r.key for r in comparison.rows].index("bisection_GBps")
    cell = dialog.table.item(row, 0)
    assert cell.text().endswith("✓") and cell.font().bold()
    out = dialog.save(tmp_path / "table.csv")
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["metric"] for r in rows} >= {"capex", "tco", "usd_per_gpu_hour", "bisection_GBps"}


def test_a_file_that_cannot_be_read_is_said(window, tmp_path):
    from rackdesigner.ui.compare_dialog import open_compare_dialog

    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\ndevices: 5\n")
    dialog = open_compare_dialog(window, [str(bad)])
    dialog.run()
    assert dialog.flush() is None
    assert dialog.status.text().startswith("Cannot compare:") and "bad.yaml" in \
        dialog.status.text()
    assert not dialog.save_button.isEnabled()


def test_a_best_inside_the_other_range_is_marked_a_tie(qtbot, tmp_path, monkeypatch):
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    w = _window(qtbot, tmp_path, monkeypatch, 8)
    other = tmp_path / "sixteen.yaml"
    save_layout(generate("rail-optimized", system="dgx-b200", nodes=16, switch="qm9700"), other)
    w.actions_.compare_action.trigger()
    dialog = w.compare_dialog
    dialog.add_paths([str(other)])
    dialog.run()
    comparison = dialog.flush()
    assert comparison is not None, dialog.status.text()
    keys = [r.key for r in comparison.rows]
    row = comparison.rows[keys.index("all_reduce_busbw_GBps")]
    assert row.range_tie and row.winner is None  # 8 and 16 nodes: within the class spread
    assert "all_reduce_busbw_GBps" not in dialog.winner_cells()
    cell = dialog.table.item(keys.index("all_reduce_busbw_GBps"), row.best)
    assert cell.text().endswith("≈") and "published clusters of this class" in cell.toolTip()


def test_compare_with_the_workload_tabs_job_lays_it_out_on_each_design(window, tmp_path):
    """Issue 38 item 1: Compare With… refused the tab's job ("set the tokens") although the
    tab showed them, and a job sized for one design failed on another's GPU count."""
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    smaller = tmp_path / "smaller.yaml"
    save_layout(generate("rail-optimized", system="dgx-b200", nodes=126, switch="qm9700"),
                smaller)
    tab = window.simulation_panel.workload
    tab.model_combo.setCurrentText("llama3-70b")
    tab.tokens.setValue(15.0)
    window.actions_.compare_action.trigger()
    dialog = window.compare_dialog
    dialog.add_paths([str(smaller)])
    dialog.job_check.setChecked(True)
    dialog.run()
    comparison = dialog.flush()
    assert comparison is not None, dialog.status.text()
    row = next(r for r in comparison.rows if r.key == "tokens_per_s")
    assert all(v and v > 0 for v in row.values), dialog.status.text()
    # round-4 walk: the rows alone hid the job they ran and that a design may run it on
    # fewer of its GPUs (a batch that does not spread over all of them): the note says so
    note = dialog.notes.text().splitlines()[0]
    assert note.startswith("job: llama3-70b, a batch of 256 sequences, 15T tokens; each "
                           "design's fastest layout: "), note
    training = [d.cost.training for d in _designs_of(window, dialog, smaller)]
    for label, t, gpus in zip(comparison.designs, training, (1024, 1008), strict=True):
        said = (f"{label} on all {gpus:,} GPUs" if t.gpus == gpus
                else f"{label} on {t.gpus:,} of its {gpus:,} GPUs")
        assert said in note, note


def _designs_of(window, dialog, other):
    """The figures the dialog's worker computed, computed again here (the same inputs)."""
    from rackdesigner.cost import find_price_book
    from rackdesigner.cost.compare import figures
    from rackdesigner.io import load_layout

    panel = window.simulation_panel
    job, _why = panel.workload.job_spec()
    out = []
    for layout in (window.document.layout, load_layout(other)):
        book = find_price_book(layout, panel.cost_tab.live.book_path)
        out.append(figures("x", layout, book, panel.cost_tab.assumptions(), job=job))
    return out
