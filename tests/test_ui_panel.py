"""The live simulation panel on real widgets: figures, live recompute, stale results, compare,
scope, export and invalid designs. Waits use `flush()` / `waitSignal`, never sleeps."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")


def _example(name: str):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


@pytest.fixture
def make_panel(qtbot):
    panels = []

    def make(layout=None, **kw):
        from rackdesigner.ui.panel import SimulationPanel

        panel = SimulationPanel(layout, **kw)
        qtbot.addWidget(panel, before_close_func=lambda p: p.close_panel())
        panel.resize(520, 860)
        panel.show()
        panels.append(panel)
        return panel

    return make


def _remove(layout, *ids, groups=()):
    """Remove devices (with their links) the way the designer does: one command."""
    from rackdesigner.commands import RemoveItems

    RemoveItems(devices=ids, groups=groups).apply(layout)


def _fig(panel, key):
    return {f.key: f for f in panel.figures()}[key]


@pytest.mark.slow
def test_panel_shows_figures_for_opened_example(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    live = panel.flush()
    assert live is not None and live.result is not None
    assert panel.headline.text_of("gpus") == "8"
    assert panel.headline.text_of("nvlink_domain") == "8 GPUs"
    assert panel.headline.text_of("busbw").endswith("GB/s")
    assert _fig(panel, "busbw").value > 300
    assert _fig(panel, "power").value > 10_000
    assert panel.bandwidth.visible_curves() == {"all_reduce": 32, "all_gather": 32,
                                                "all_to_all": 32}
    assert panel.bandwidth.region_names()  # algorithm regions are marked
    assert len(panel.power.bars["gpu"].opts["height"]) == 1  # one rack
    assert not panel.busy_label.isVisible()


@pytest.mark.slow
def test_removing_and_adding_nvlink_changes_scale_up(make_panel, qtbot):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    scale_up, scale_out = _fig(panel, "scale_up").value, _fig(panel, "scale_out").value
    link = layout.remove_link("dgx-1.l0")  # GPU 0 loses 5 of its 18 NVLinks
    assert panel.live.busy and panel.busy_label.isVisible()  # debounced: "updating…"
    with qtbot.waitSignal(panel.shown, timeout=10_000):
        pass  # the debounce fires by itself
    assert _fig(panel, "scale_up").value == pytest.approx(scale_up * 13 / 18)
    assert _fig(panel, "scale_out").value == scale_out
    layout.add_link(link)
    panel.flush()
    assert _fig(panel, "scale_up").value == pytest.approx(scale_up)


@pytest.mark.slow
def test_adding_an_infiniband_link_changes_scale_out(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    before = {k: _fig(panel, k).value for k in ("scale_out", "bisection", "scale_up")}
    link = layout.remove_link("link-1")  # dgx-1.nic0 → leaf-1
    panel.flush()
    assert _fig(panel, "scale_out").value < before["scale_out"]
    assert _fig(panel, "scale_up").value == before["scale_up"]
    layout.add_link(link)
    panel.flush()
    assert _fig(panel, "scale_out").value == before["scale_out"]
    assert _fig(panel, "bisection").value == before["bisection"]


@pytest.mark.slow
def test_removing_the_switch_splits_the_design(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    busbw = _fig(panel, "busbw").value
    bisection = _fig(panel, "bisection").value
    panel.pin_baseline()
    _remove(layout, "leaf-1")
    panel.flush()
    assert panel.headline.text_of("gpus") == "16"
    assert "8 reachable" in panel.headline.tiles["gpus"].detail.text()
    assert _fig(panel, "busbw").value is None and busbw > 0
    assert panel.headline.text_of("busbw") == "unavailable"
    assert panel.banner.isVisible() and "cannot reach" in panel.banner.text()
    # a partitioned design never looks better than the connected one (was "+350 %")
    assert _fig(panel, "bisection").value == 0.0 < bisection
    assert panel.headline.deltas["bisection"].startswith("−")
    assert "busbw" not in panel.headline.deltas and "latency" not in panel.headline.deltas


@pytest.mark.slow
def test_burst_of_edits_is_one_recompute(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    runs = panel.live.runs
    for i in range(1, 9):
        layout.remove_link(f"link-{i}")
    layout.update_device("leaf-1", name="renamed")  # a rename does not count
    panel.flush()
    assert panel.live.runs == runs + 1
    assert panel.current.revision == layout.revision


@pytest.mark.slow
def test_pure_moves_do_not_recompute(make_panel):
    layout = _example("dgx-h100.yaml")
    panel = make_panel(layout)
    panel.flush()
    runs = panel.live.runs
    device = next(iter(layout.devices()))
    layout.update_device(device.id, pos=(device.pos[0] + 50, device.pos[1]))
    assert not panel.live.busy
    panel.flush()
    assert panel.live.runs == runs


@pytest.mark.slow
def test_stale_results_are_dropped(make_panel, qtbot):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    shown = []
    panel.shown.connect(shown.append)
    panel.live.request(immediate=True)  # a run starts on the worker …
    _remove(layout, "leaf-1")  # … and the design changes under it
    with qtbot.waitSignal(panel.live.result_dropped, timeout=10_000) as blocker:
        pass
    stale = blocker.args[0]
    panel.flush()
    assert stale.request < panel.current.request
    assert panel.live.dropped == 1
    assert [live.revision for live in shown] == [layout.revision]
    assert panel.current.result.scope.reachable_gpus == 8


@pytest.mark.slow
def test_pin_and_compare_shows_two_curves_and_deltas(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    assert not panel.compare.clear_button.isEnabled()
    panel.compare.pin_button.click()
    assert panel.store.baseline is not None
    assert "baseline" in panel.compare.label.text().lower()
    for i in range(1, 5):  # dgx-1 loses half its rails
        layout.remove_link(f"link-{i}")
    panel.flush()
    curves = panel.bandwidth.visible_curves()
    assert curves["all_reduce"] == 32 and curves["all_reduce (baseline)"] == 32
    assert "all_reduce (baseline)" in panel.latency.sweep.visible_curves()
    deltas = panel.headline.deltas
    assert deltas["scale_out"].startswith("−") and deltas["scale_out"].endswith("%")
    assert "busbw" in deltas
    assert "vs baseline" in panel.headline.tiles["scale_out"].delta.text()
    assert "(baseline)" in panel.bandwidth.hover_at(30)
    panel.compare.clear_button.click()
    assert panel.store.baseline is None
    assert "all_reduce (baseline)" not in panel.bandwidth.visible_curves()
    assert panel.headline.deltas == {}


@pytest.mark.slow
def test_scope_follows_the_selection(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    assert not panel.scope_button.isEnabled()
    panel.set_selection([], [], ["dgx-2"])
    assert panel.scope_button.isEnabled()
    panel.scope_button.click()
    panel.flush()
    assert panel.current.scope == "dgx-2"
    assert panel.headline.text_of("gpus") == "8"
    assert "DGX H100 2" in panel.scope_label.text()
    gpus = ["dgx-1.gpu0", "dgx-1.gpu1", "dgx-2.gpu0", "dgx-1.nic0"]
    panel.set_selection(gpus, [], [])  # the NIC is not a GPU: three GPUs
    panel.flush()
    assert panel.current.scope == ("dgx-1.gpu0", "dgx-1.gpu1", "dgx-2.gpu0")
    assert panel.headline.text_of("gpus") == "3"
    panel.scope_button.click()  # back to the whole design
    panel.flush()
    assert panel.current.scope is None and panel.headline.text_of("gpus") == "16"


@pytest.mark.slow
def test_scope_on_a_removed_group_shows_a_reason(make_panel):
    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.set_selection([], [], ["dgx-2"])
    panel.scope_button.click()
    panel.flush()
    _remove(layout, groups=["dgx-2"])
    panel.flush()
    assert panel.current.result is None
    assert "Cannot simulate" in panel.banner.text() and "dgx-2" in panel.banner.text()


@pytest.mark.slow
@pytest.mark.parametrize("what", ["empty", "no-gpus"])
def test_design_without_gpus_shows_a_reason(make_panel, catalog, what):
    from rackdesigner.model import Device, Layout

    layout = Layout(catalog)
    if what == "no-gpus":
        switch = next(s for s in catalog if s.kind == "switch")
        layout.add_device(Device("sw-1", switch.id))
    panel = make_panel(layout)
    live = panel.flush()
    assert live.result is not None
    assert panel.banner.isVisible() and "no GPUs" in panel.banner.text()
    assert panel.headline.text_of("busbw") == "—"
    assert panel.bandwidth.visible_curves() == {}


@pytest.mark.slow
def test_algorithm_choice_recomputes(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    panel.algorithm_combo.setCurrentText("ring")
    panel.flush()
    assert panel.current.algorithm == "ring"
    assert {p.algorithm for p in panel.current.result.collective("all_reduce")} == {"ring"}
    assert panel.bandwidth.region_names() == ["ring"]


@pytest.mark.slow
def test_hover_reads_exact_values(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    point = next(p for p in panel.current.result.collective("all_reduce") if p.bytes == 2 ** 30)
    text = panel.bandwidth.hover_at(30.2)
    assert "1 GiB" in text and f"{point.busbw_GBps:,.1f} GB/s" in text
    assert panel.bandwidth.readout.text() == text
    assert panel.bandwidth.cursor.isVisible() and panel.bandwidth.cursor.value() == 30
    assert "rack-1" in panel.power.describe(0)


def test_size_axis_labels(qapp):
    from rackdesigner.ui.panel.axes import SizeAxisItem

    axis = SizeAxisItem(orientation="bottom")
    major = axis.tickValues(3, 34, 300)[0][1]
    assert axis.tickStrings(major, 1, 1) == ["8 B", "1 KiB", "1 MiB", "1 GiB", "16 GiB"]


@pytest.mark.slow
def test_exports(make_panel, tmp_path):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    data = json.loads(panel.export_to("json", tmp_path / "r.json").read_text())
    assert data["schema"] == "rackdesigner.simulation/1" and data["scope"]["gpus"] == 8
    assert len(data["collectives"]["all_reduce"]) == 32
    csv_text = panel.export_to("csv", tmp_path / "r.csv").read_text()
    assert "all_reduce,1073741824,1 GiB" in csv_text
    for kind in ("bandwidth", "latency", "power"):
        png = panel.export_to(kind, tmp_path / f"{kind}.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    panel.pin_baseline()
    saved = json.loads(panel.store.save(tmp_path / "base.json").read_text())
    assert saved["scope"]["gpus"] == 8


@pytest.mark.slow
def test_layout_replaced_follows_new_document(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    panel.set_layout(_example("dgx-h100-2node-ib.yaml"))
    panel.flush()
    assert panel.headline.text_of("gpus") == "16"


@pytest.mark.slow
def test_the_worker_reads_a_snapshot_no_later_edit_can_change(make_panel, monkeypatch):
    """The snapshot is taken on the GUI thread when a run starts; an edit made while the worker
    runs changes the document, never what the worker reads (the run's result is then dropped)."""
    import threading

    from rackdesigner.ui.panel import live as live_module

    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    started, release, seen = threading.Event(), threading.Event(), []
    real = live_module.simulate

    def gated(snapshot, *args, **kwargs):
        started.set()
        assert release.wait(10)
        seen.append((snapshot.has_device("leaf-1"), snapshot.link_count()))
        return real(snapshot, *args, **kwargs)

    monkeypatch.setattr(live_module, "simulate", gated)
    links = layout.link_count()
    panel.live._intact_cache.clear()  # else the unchanged design's kept run answers at once
    panel.live.request(immediate=True)
    assert started.wait(10)
    _remove(layout, "leaf-1")  # the GUI thread edits while the worker is held
    release.set()
    panel.flush()
    assert seen[0] == (True, links)  # the worker saw the design as it was when it started
    assert seen[-1][0] is False and panel.live.dropped == 1
    assert panel.current.revision == layout.revision


@pytest.mark.slow
def test_hover_with_the_mouse_shows_values(make_panel, qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    plot = panel.bandwidth
    view = plot.plot
    qtbot.waitUntil(lambda: view.isVisible())
    QApplication.processEvents()  # the figures laid out (their range lines) before mapping
    scene_pos = plot.item.vb.mapViewToScene(QPointF(20, 0))  # 1 MiB
    pos = view.mapFromScene(scene_pos)
    QTest.mouseMove(view.viewport(), QPoint(pos.x(), pos.y() - 20))
    qtbot.waitUntil(lambda: "1 MiB" in plot.readout.text(), timeout=5000)
    assert "GB/s" in plot.readout.text() and plot.cursor.value() == 20


@pytest.mark.slow
def test_power_bars_stack_to_each_rack_and_hover(make_panel, qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtTest import QTest

    panel = make_panel(_example("dgx-h100-2node-ib.yaml"))
    live = panel.flush()
    panel.show_tab("power")
    power = panel.power
    rack = next(iter(live.result.power.by_rack.values()))
    top = sum(bar.opts["height"][0] for bar in power.bars.values())
    assert top == pytest.approx(rack.max_w / 1000, abs=1e-3)
    _xs, ys = power.budget.getData()
    assert list(ys) == [rack.budget_w / 1000] * 2
    scene_pos = power.item.vb.mapViewToScene(QPointF(0, top / 2))
    pos = power.plot.mapFromScene(scene_pos)
    QTest.mouseMove(power.plot.viewport(), QPoint(pos.x(), pos.y()))
    qtbot.waitUntil(lambda: "rack-1" in power.readout.text(), timeout=5000)
    budget_kw = f"budget {rack.budget_w / 1000:.1f} kW (model default)"
    assert budget_kw in power.readout.text()


@pytest.mark.slow
def test_export_menu_and_save_baseline_through_the_dialog(make_panel, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    messages = []
    panel.message.connect(messages.append)
    target = tmp_path / "out.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    json_action = next(a for a in panel.export_button.menu().actions() if "JSON" in a.text())
    json_action.trigger()
    assert json.loads(target.read_text())["scope"]["gpus"] == 8
    assert messages[-1].startswith("Exported")
    panel.compare.pin_button.click()
    target = tmp_path / "baseline.json"
    panel.compare.save_button.click()
    assert json.loads(target.read_text())["schema"] == "rackdesigner.simulation/1"
    target = tmp_path / "missing-dir" / "x.json"
    json_action.trigger()
    assert messages[-1].startswith("Cannot export")


@pytest.mark.slow
def test_bisection_tile_names_its_bottleneck(make_panel):
    panel = make_panel(_example("dgx-h100-2node-ib.yaml"))
    panel.flush()
    tip = panel.headline.tiles["bisection"].toolTip()
    assert "Bisection: 400" in tip and "NIC links" in tip
