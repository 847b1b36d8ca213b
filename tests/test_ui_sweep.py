"""Analyze ▸ Sweep…: run a spec from the window, plot it, Pareto front, click opens the design."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest

SPEC = """\
schema_version: 1
generate: single-leaf
fixed: {switch: qm9700}
grid: {system: [dgx-h100, dgx-a100], nodes: [1, 2, 9]}
"""


@pytest.fixture
def window(qtbot, tmp_path):
    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(catalog=default_catalog(), settings=settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.document.undo_stack.setClean())
    win.show()
    qtbot.waitExposed(win)
    return win


def _run(qtbot, sweep, spec: Path) -> None:
    sweep.spec_edit.setText(str(spec))
    sweep.scheduler.setCurrentText("threads")
    with qtbot.waitSignal(sweep.run_finished, timeout=60_000):
        QTest.mouseClick(sweep.run_button, Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_menu_runs_a_sweep_plots_it_and_a_click_opens_the_design(qtbot, window, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    window.actions_.sweep_action.trigger()
    sweep = window.sweep_window
    qtbot.waitExposed(sweep)
    _run(qtbot, sweep, spec)
    assert sweep.progress.value() == sweep.progress.maximum() == 6
    # four designs drawn; the two that cannot be built are listed with their error
    assert sweep.drawn() == 4
    assert "2 failed points" in sweep.failures.text() and "nodes=9" in sweep.failures.text()
    # default axes: power (lower is better) against all_reduce busbw (higher is better)
    assert (sweep.x_axis.currentText(), sweep.y_axis.currentText()) == (
        "power_max_w", "all_reduce_busbw_GBps")
    assert sweep.x_lower.isChecked() and not sweep.y_lower.isChecked()
    # coloured by the first parameter that varies: one legend entry per system
    assert sweep.colour_by.currentText() == "system" and len(sweep.scatters) == 2
    assert sweep.front  # every front point is not beaten on both figures by another point
    for i in sweep.front:
        for j, other in enumerate(sweep.rows):
            if other["status"] == "failed" or j == i:
                continue
            mine = sweep.rows[i]
            assert not (other["power_max_w"] < mine["power_max_w"]
                        and other["all_reduce_busbw_GBps"] > mine["all_reduce_busbw_GBps"])
    # the user picks other axes: GPUs against switches
    sweep.x_axis.setCurrentText("gpus")
    sweep.y_axis.setCurrentText("switches")
    assert sweep.plot.getPlotItem().getAxis("bottom").labelText == "gpus"
    assert sweep.y_lower.isChecked()

    # click the point of 2 x DGX A100 (16 GPUs): the main window opens that design
    target = next(i for i, r in enumerate(sweep.rows)
                  if r["system"] == "dgx-a100" and r["nodes"] == 2)
    sweep.plot.getPlotItem().vb.autoRange(padding=0.2)
    qtbot.waitUntil(lambda: sweep.plot.isVisible())
    pos = sweep.plot.mapFromScene(sweep.point_scene_pos(target))
    with qtbot.waitSignal(sweep.design_requested, timeout=5000) as blocker:
        QTest.mouseClick(sweep.plot.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos))
    spec_arg, params = blocker.args
    assert spec_arg.template == "single-leaf"
    assert params == {"switch": "qm9700", "system": "dgx-a100", "nodes": 2}
    gpus = [d for d in window.document.layout.devices() if d.model == "a100-sxm4"]
    assert len(gpus) == 16


def test_a_bad_spec_says_where_and_nothing_runs(qtbot, tmp_path):
    from rackdesigner.ui.sweep_window import SweepWindow

    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    spec = tmp_path / "bad.yaml"
    spec.write_text("schema_version: 1\ngenerate: superpod\ngrid: {sus: [1]}\n")
    _run(qtbot, sweep, spec)
    assert sweep.status.text().startswith(f"{spec}:2: template 'superpod' needs system")
    assert sweep.run_button.isEnabled() and not sweep.rows


def test_a_results_file_is_plotted_without_running(qtbot, tmp_path):
    from rackdesigner.sweep import parse_spec, run_sweep, write_results
    from rackdesigner.ui.sweep_window import SweepWindow

    result = run_sweep(parse_spec(SPEC), "synchronous")
    write_results(result, tmp_path / "r.csv")
    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    assert sweep.open_results(str(tmp_path / "r.csv"))
    assert sweep.drawn() == 4
    assert not sweep.open_results(str(tmp_path / "missing.json"))
    assert "missing.json" in sweep.status.text()


@pytest.mark.slow
def test_a_workload_sweep_plots_time_to_train_against_gpus(qtbot, tmp_path):
    """The window runs a spec with `workload:` and offers its estimate columns as axes; time
    to train is lower-is-better, so twice the SUs (more GPUs, fewer days) is the whole front
    until the user says fewer GPUs are better too: then both designs are on it."""
    from rackdesigner.ui.sweep_window import SweepWindow

    spec = tmp_path / "w.yaml"
    spec.write_text("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-a100}\n"
                    "grid: {sus: [1, 2]}\n"
                    "workload: {model: llama3-8b, tp: 8, gbs: 640, tokens: 1T}\n",
                    encoding="utf-8")
    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    _run(qtbot, sweep, spec)
    choices = [sweep.y_axis.itemText(i) for i in range(sweep.y_axis.count())]
    for column in ("step_time_s", "tokens_per_s", "mfu", "time_to_train_days", "energy_MWh"):
        assert column in choices
    assert "fits" not in choices  # a yes/no column is not an axis
    sweep.x_axis.setCurrentText("gpus")
    sweep.y_axis.setCurrentText("time_to_train_days")
    assert sweep.y_lower.isChecked() and not sweep.x_lower.isChecked()
    assert sweep.drawn() == 2
    assert sweep.front == [1]
    QTest.mouseClick(sweep.x_lower, Qt.MouseButton.LeftButton)
    assert sweep.x_lower.isChecked()
    assert sorted(sweep.front) == [0, 1]
    one, two = sweep.rows
    assert two["time_to_train_days"] < one["time_to_train_days"]


def test_cost_is_an_axis_and_the_front_is_performance_per_dollar(qtbot):
    """Rows with cost columns (as a sweep writes them): capex is offered as an axis, lower is
    better by default, and the front keeps the designs no other beats on both busbw and price."""
    from rackdesigner.ui.sweep_window import SweepWindow

    columns = ["point", "sus", "gpus", "capex", "capex_complete", "usd_per_gpu_hour",
               "all_reduce_busbw_GBps", "status", "error"]
    rows = [{"point": i + 1, "sus": s, "gpus": 256 * s, "capex": c, "capex_complete": True,
             "usd_per_gpu_hour": c / 1e7, "all_reduce_busbw_GBps": b, "status": "ok",
             "error": None}
            for i, (s, c, b) in enumerate([(1, 10e6, 300.0), (2, 12e6, 350.0),
                                           (3, 15e6, 340.0), (4, 8e6, 200.0)])]
    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    sweep.show_rows(columns, rows)
    choices = [sweep.x_axis.itemText(i) for i in range(sweep.x_axis.count())]
    assert {"capex", "usd_per_gpu_hour"} <= set(choices) and "capex_complete" not in choices
    sweep.x_axis.setCurrentText("capex")
    sweep.y_axis.setCurrentText("all_reduce_busbw_GBps")
    assert sweep.x_lower.isChecked() and not sweep.y_lower.isChecked()
    assert sorted(sweep.front) == [0, 1, 3]  # the 15 M point is beaten by the 12 M one


def test_the_legend_never_covers_a_point(qtbot, tmp_path):
    """Issue 26: the legend sat in the plot's corner over a design's point."""
    from rackdesigner.sweep import parse_spec, run_sweep, write_results
    from rackdesigner.ui.sweep_window import SweepWindow

    result = run_sweep(parse_spec(SPEC), "synchronous")
    write_results(result, tmp_path / "r.csv")
    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    sweep.resize(700, 500)
    sweep.show()
    qtbot.waitExposed(sweep)
    assert sweep.open_results(str(tmp_path / "r.csv"))
    for colour in range(sweep.colour_by.count()):  # one legend entry, or one per value
        sweep.colour_by.setCurrentIndex(colour)
        qtbot.wait(50)
        legend = sweep.legend.mapRectToScene(sweep.legend.boundingRect())
        view = sweep.plot.getPlotItem().vb.mapRectToScene(
            sweep.plot.getPlotItem().vb.boundingRect())
        assert legend.height() > 0 and not legend.intersects(view), (legend, view)
