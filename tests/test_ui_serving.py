"""The Workload tab's Serving mode on real widgets: the curve is drawn on log axes, the target
point marked with its layout, a pinned baseline drawn beside the next design's curve, and the
curve follows a design edit. Waits use `flush()`, never sleeps."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture
def make_panel(qtbot):
    def make(layout=None):
        from rackdesigner.ui.panel import SimulationPanel

        panel = SimulationPanel(layout, debounce_ms=20)
        qtbot.addWidget(panel, before_close_func=lambda p: p.close_panel())
        panel.resize(560, 900)
        panel.show()
        panel.show_tab("workload")
        return panel

    return make


def test_serving_mode_draws_the_curve_and_follows_edits(make_panel, qtbot):
    from PySide6.QtCore import Qt

    from rackdesigner.commands import RemoveItems
    from tests.serving_designs import tor_nodes

    layout = tor_nodes(4, uplinks=8)  # every byte between nodes crosses a spine
    panel = make_panel(layout)
    modes = panel.workload_modes
    qtbot.keyClicks(modes.mode_combo, "Serving")  # the user picks the mode
    assert modes.stack.currentWidget() is panel.serving and panel.serving.isVisible()
    view = panel.serving
    view.model_combo.setCurrentText("deepseek-r1")
    view.precision_combo.setCurrentText("fp4")
    view.target.setValue(40)
    outcome = view.flush()
    r = outcome.result
    assert r is not None and r.pareto and r.at is not None and r.at.per_user >= 40
    xs, _ys = view.curve.getData()
    assert len(xs) == len(r.pareto)
    assert view.plot.getPlotItem().ctrl.logXCheck.isChecked()  # log axes
    cx, _cy = view.chosen.getData()
    assert cx[0] == pytest.approx(math.log10(r.at.per_user))
    assert "at target" in view.point_text() and r.at.config["label"] in view.point_text()
    assert view.pin_button.isEnabled()
    qtbot.mouseClick(view.pin_button, Qt.MouseButton.LeftButton)
    assert view.baseline is r and view.baseline_curve.getData()[0] is not None
    # one designer edit: a node and its leaf gone, fewer GPUs to split into prefill and decode
    # pools (half the spines alone no longer moves it: every point of this curve keeps its
    # instances inside a node, and the KV hand-off between pools is not what limits them)
    RemoveItems(devices=["leaf-4"], groups=["node-4"]).apply(layout)
    after = view.flush().result
    assert after is not r and after.pareto
    assert "baseline" in view.point_text()
    bx, by = view.baseline_curve.getData()
    assert len(bx) == len(r.pareto)  # the pinned curve stays drawn beside the new one
    assert list(view.curve.getData()[1]) != list(by)  # and the new one moved
    assert after.max_load.output_per_gpu <= r.max_load.output_per_gpu * (1 + 1e-9)


def test_serving_mode_says_why_it_cannot_estimate(make_panel, qtbot):
    from rackdesigner.generators import generate

    panel = make_panel(generate("dgx-h100"))
    panel.workload_modes.set_mode("Serving")
    view = panel.serving
    view.precision_combo.setCurrentText("fp4")  # Hopper has no FP4
    outcome = view.flush()
    assert outcome.result is None and "FP4" in view.status.text()
    view.precision_combo.setCurrentText("fp8")
    view.model_combo.setCurrentText("llama3.1-405b")
    view.precision_combo.setCurrentText("bf16")
    outcome = view.flush()
    assert not outcome.result.pareto and "does not fit" in view.status.text()
    assert not view.pin_button.isEnabled()
