"""The live panel's messages by severity, narrow docks, PUE, loading a baseline and algbw on
demand — on real widgets, offscreen; waits use `flush()`, never sleeps."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("pytestqt")


def _example(name: str):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


@pytest.fixture
def make_panel(qtbot):
    def make(layout=None, width=520):
        from rackdesigner.ui.panel import SimulationPanel

        panel = SimulationPanel(layout)
        qtbot.addWidget(panel, before_close_func=lambda p: p.close_panel())
        panel.resize(width, 860)
        panel.show()
        qtbot.waitExposed(panel)
        return panel

    return make


def _fig(panel, key):
    return {f.key: f for f in panel.figures()}[key]


# ---- notes vs warnings ---------------------------------------------------------------------
@pytest.mark.slow
def test_plain_example_shows_notes_quietly_not_a_warning(make_panel, qtbot):
    from PySide6.QtCore import Qt

    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    bar = panel.notes_bar
    assert not panel.banner.isVisible()  # no yellow banner for information
    assert bar.notes_button.isVisible() and bar.notes_button.text() == "2 notes"
    assert not bar.notes_label.isVisible()
    qtbot.mouseClick(bar.notes_button, Qt.MouseButton.LeftButton)
    assert bar.notes_label.isVisible()
    assert "model figure" in bar.notes_label.text()
    qtbot.mouseClick(bar.notes_button, Qt.MouseButton.LeftButton)
    assert not bar.notes_label.isVisible()


@pytest.mark.slow
def test_unreachable_gpus_are_a_warning_next_to_the_notes(make_panel):
    from rackdesigner.commands import RemoveItems

    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    assert not panel.banner.isVisible()
    RemoveItems(devices=["leaf-1"]).apply(layout)
    panel.flush()
    assert panel.banner.isVisible() and panel.banner.text().startswith("⚠")
    assert "cannot reach" in panel.banner.text()
    assert "more warning" not in panel.banner.text()
    assert all("cannot reach" not in n for n in panel.notes_bar.notes)
    assert panel.notes_bar.notes_button.isVisible()  # the notes stay, quietly


@pytest.mark.slow
def test_a_run_that_cannot_start_is_a_warning(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    panel.set_layout(None)  # the document was closed
    panel.flush()
    assert panel.banner.isVisible() and "Cannot simulate" in panel.banner.text()
    assert not panel.notes_bar.notes_button.isVisible()


# ---- narrow docks --------------------------------------------------------------------------
@pytest.mark.slow
def test_narrow_dock_shows_two_columns_and_the_minimum_width_drops(make_panel, qtbot):
    from rackdesigner.ui.panel.headline import COLUMNS

    panel = make_panel(_example("dgx-h100-2node-ib.yaml"), width=560)
    panel.flush()
    headline = panel.headline
    three = headline.width_for(COLUMNS)
    assert headline.columns == 3 and headline.width() >= three
    assert panel.minimumSizeHint().width() < 400 < three  # was ~464: three columns forced
    panel.resize(panel.minimumSizeHint().width(), 860)
    qtbot.waitUntil(lambda: headline.columns == 2, timeout=5000)
    assert headline.width() < three
    grid = headline.grid
    positions = {k: grid.getItemPosition(grid.indexOf(t))[:2] for k, t in headline.tiles.items()}
    assert positions["gpus"] == (0, 0) and positions["nvlink_domain"] == (0, 1)
    assert positions["scale_up"] == (1, 0) and max(c for _r, c in positions.values()) == 1
    qtbot.waitUntil(lambda: all(  # laid out with nothing cut: each tile at least its minimum
        t.width() >= t.minimumSizeHint().width() for t in headline.tiles.values()), timeout=5000)
    assert panel.scroll.horizontalScrollBar().maximum() == 0
    panel.metric_combo.setCurrentText("busbw + algbw")  # its title must not widen the plot
    plot = panel.bandwidth
    qtbot.waitUntil(lambda: plot.item.minimumWidth() <= plot.plot.viewport().width())
    panel.resize(560, 860)
    qtbot.waitUntil(lambda: headline.columns == 3, timeout=5000)
    assert grid.getItemPosition(grid.indexOf(headline.tiles["scale_up"]))[:2] == (0, 2)


# ---- PUE ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_pue_spin_box_recomputes_facility_power(make_panel, qtbot):
    from PySide6.QtCore import Qt

    from rackdesigner.model.pue import design_pue
    from rackdesigner.ui.panel.figures import format_watts

    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    spin = panel.pue_spin
    # no PUE of the user's: the box says so, and the Power tile uses the design's own PUE
    assert spin.value() == spin.minimum() and spin.text() == "cooling"
    assert panel.current.result.power.pue == pytest.approx(design_pue(panel.live.layout)[0])
    assert (spin.maximum(), spin.singleStep()) == (3.0, 0.05)
    it_power = panel.current.result.power.total_max_w
    panel.show_tab("power")
    qtbot.waitExposed(spin)
    spin.setValue(1.3)
    panel.flush()
    spin.setFocus()
    for _ in range(4):  # 1.30 -> 1.50, as the user would with the arrow key
        qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == pytest.approx(1.5)
    runs = panel.live.runs
    panel.flush()
    assert panel.live.runs == runs + 1  # four steps, one recompute (debounced)
    power = panel.current.result.power
    assert power.pue == pytest.approx(1.5)
    assert power.total_max_w == it_power  # IT power does not change, facility does
    facility = format_watts(it_power * 1.5)
    assert f"facility {facility} (PUE 1.5)" == panel.headline.tiles["per_gpu"].detail.text()
    assert f"facility {facility} at PUE 1.5" in panel.power.total.text()
    spin.setValue(9.0)  # clamped to the spin box's range, never an engine error
    panel.flush()
    assert panel.current.result.power.pue == 3.0 and not panel.banner.isVisible()


# ---- algbw on demand -----------------------------------------------------------------------
@pytest.mark.slow
def test_bandwidth_plot_shows_algbw_dotted_next_to_busbw(make_panel):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    plot = panel.bandwidth
    assert [panel.metric_combo.itemText(i) for i in range(panel.metric_combo.count())] == [
        "busbw", "algbw", "busbw + algbw"]
    assert "all_reduce algbw" not in plot.visible_curves()
    panel.metric_combo.setCurrentText("busbw + algbw")
    curves = plot.visible_curves()
    assert curves["all_reduce"] == 32 and curves["all_reduce algbw"] == 32
    assert plot.algbw_curves["all_reduce"].opts["pen"].style().name == "DotLine"
    assert plot.curves["all_reduce"].opts["pen"].style().name == "SolidLine"
    point = next(p for p in panel.current.result.collective("all_reduce") if p.bytes == 2 ** 30)
    ys = plot.algbw_curves["all_reduce"].getData()[1]
    assert ys[-5] == pytest.approx(point.algbw_GBps)  # 1 GiB is 5th from the end (16 GiB)
    assert point.algbw_GBps < point.busbw_GBps
    text = plot.hover_at(30)
    assert "busbw" in text and "algbw" in text and f"{point.algbw_GBps:,.1f} GB/s" in text
    assert "algbw" in plot.legend.text()
    panel.pin_baseline()
    assert "all_reduce algbw (baseline)" in plot.visible_curves()
    panel.set_collectives(["all_gather"])
    assert set(plot.visible_curves()) == {"all_gather", "all_gather algbw", "all_gather "
                                          "(baseline)", "all_gather algbw (baseline)"}
    panel.metric_combo.setCurrentText("busbw")
    assert not any("algbw" in k for k in plot.visible_curves())
    assert "algbw" not in plot.hover_at(30)


# ---- load a baseline -----------------------------------------------------------------------
@pytest.mark.slow
def test_saved_baseline_loads_back_and_compares(make_panel, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from rackdesigner.commands import RemoveItems

    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    panel.flush()
    panel.pin_baseline()
    pinned = panel.headline.deltas, panel.store.baseline.live.result.to_dict()
    saved = tmp_path / "baseline.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(saved), "")))
    panel.compare.save_button.click()
    panel.compare.clear_button.click()
    assert panel.store.baseline is None
    RemoveItems(links=["link-1", "link-2", "link-3", "link-4"]).apply(layout)
    panel.flush()
    messages = []
    panel.message.connect(messages.append)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(saved), "")))
    assert panel.compare.load_button.isEnabled()
    panel.compare.load_button.click()
    base = panel.store.baseline
    assert base is not None and base.source == str(saved)
    assert base.live.result.to_dict() == pinned[1]  # the round trip is exact
    assert "baseline.json" in panel.compare.label.text() and messages[-1].startswith("Loaded")
    assert panel.headline.deltas["scale_out"].startswith("−")
    assert panel.bandwidth.visible_curves()["all_reduce (baseline)"] == 32
    assert panel.compare.save_button.isEnabled()
    again = tmp_path / "again.json"
    panel.store.save(again)
    assert json.loads(again.read_text()) == json.loads(saved.read_text())
    assert pinned[0] == {}


@pytest.mark.slow
def test_simulate_json_output_loads_as_the_baseline(make_panel, tmp_path, capsys):
    from rackdesigner._resources import example_paths
    from rackdesigner.cli import main

    path = next(p for p in example_paths() if p.name == "dgx-h100.yaml")
    assert main(["simulate", str(path), "--json", "--pue", "1.5"]) == 0
    out = tmp_path / "cli.json"
    out.write_text(capsys.readouterr().out)
    panel = make_panel(_example("dgx-h100-2node-ib.yaml"))
    panel.flush()
    assert panel.load_baseline(out)
    result = panel.store.baseline.live.result
    assert result.scope.gpus == 8 and result.power.pue == 1.5
    assert panel.headline.deltas["gpus"] == "+8"


@pytest.mark.slow
@pytest.mark.parametrize(("content", "reason"), [
    (b"{not json", "not valid JSON (line 1"),
    (b"\xff\xfe\x00garbage", "not a text file"),
    (b'{"schema": "rackdesigner.layout/1"}', "not a RackDesigner simulation result"),
    (b'{"schema": "rackdesigner.simulation/9"}', "newer RackDesigner"),
    (b'{"schema": "rackdesigner.simulation/1", "scope": {"gpus": 8}}', "scope.nodes is missing"),
    (b'[1, 2]', "should be an object"),
    (None, "cannot read"),
])
def test_a_bad_baseline_file_gives_a_clear_message(make_panel, tmp_path, content, reason):
    panel = make_panel(_example("dgx-h100.yaml"))
    panel.flush()
    panel.pin_baseline()
    before = panel.store.baseline
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_bytes(content)
    messages = []
    panel.message.connect(messages.append)
    assert not panel.load_baseline(path)  # no exception, no dialog
    assert panel.store.baseline is before  # the pinned baseline stays
    assert messages[-1].startswith("Cannot load the baseline: ") and "bad.json" in messages[-1]
    assert reason in messages[-1]
    assert panel.compare.error.isVisible() and reason in panel.compare.error.text()
    assert "pinned" in panel.compare.label.text()  # still says what the baseline is
    panel.compare.clear_button.click()
    assert not panel.compare.error.isVisible()


@pytest.mark.slow
def test_a_rack_over_budget_is_a_warning(make_panel, tmp_path):
    from rackdesigner.catalog import load_catalog
    from rackdesigner.model import Device, Layout, Link, PortRef

    head = "schema: rackdesigner.device/1\nmanufacturer: Test\n"
    specs = {
        "bgpu": "kind: gpu\nmodel: B-GPU\npower: {max_w: 700, source: s}\nports:\n"
                "  - {name: nvlink, protocol: nvlink, generation: '4', count: 18, lanes: 1, "
                "rate_gbps: 200, connector: c, source: s}\n"
                "gpu: {architecture: hopper, sm: 90, source: s}\n",
        "brack": "kind: rack\nmodel: B-rack\nu_height: 42\n"
                 "rack: {height_u: 42, power_budget_w: 1000, source: s}\n",
    }
    paths = []
    for model, body in specs.items():
        path = tmp_path / f"{model}.yaml"
        path.write_text(head + f"id: {model}\n" + body + "sources: {s: {title: test}}\n")
        paths.append(path)
    layout = Layout(catalog=load_catalog(paths))
    layout.add_device(Device("r1", "brack"))
    for g in ("g0", "g1"):
        layout.add_device(Device(g, "bgpu", rack="r1"))
    layout.add_link(Link("l1", PortRef("g0", "nvlink"), PortRef("g1", "nvlink"), 18))
    panel = make_panel(layout)
    panel.flush()
    assert panel.headline.text_of("over_budget") == "1 of 1"
    assert panel.banner.isVisible() and "over its 1.0 kW power budget" in panel.banner.text()
    assert panel.notes_bar.warnings == tuple(m.text for m in panel.current.result.warnings())


# ---- SHARP switch and rank placement -------------------------------------------------------
@pytest.mark.slow
def test_sharp_switch_is_a_design_setting_with_one_undo_step(make_panel, qtbot):
    from PySide6.QtCore import Qt

    from rackdesigner.commands.history import run

    layout = _example("dgx-h100-2node-ib.yaml")
    panel = make_panel(layout)
    pushed = []

    def sink(command):  # what the window's Document.push does, minus the Qt undo stack
        pushed.append(run(layout, command))

    panel.command_sink = sink
    off = panel.flush()
    assert not panel.sharp_check.isChecked() and not off.result.sharp
    assert "nvls" not in {p.algorithm for p in off.result.collective("all_reduce")}
    qtbot.mouseClick(panel.sharp_check, Qt.MouseButton.LeftButton)
    on = panel.flush()
    assert len(pushed) == 1 and layout.meta.sharp and on.result.sharp
    # with in-network reduction allowed, NVLS across the two nodes (SHARP) takes over
    assert "nvls" in {p.algorithm for p in on.result.collective("all_reduce")}
    pushed[0].undo(layout)  # undo: the switch follows the design
    panel.flush()
    assert not layout.meta.sharp and not panel.sharp_check.isChecked()


@pytest.mark.slow
def test_placement_choice_reaches_the_engine(make_panel, qtbot):
    from PySide6.QtCore import Qt

    panel = make_panel(_example("fat-tree-2tier.yaml"))
    assert panel.flush().result.placement == "contiguous"
    panel.placement_combo.setFocus()
    qtbot.keyClick(panel.placement_combo, Qt.Key.Key_Down)
    live = panel.flush()
    assert panel.placement_combo.currentText() == "scattered"
    assert live.result.placement == "scattered"
    assert any(m.code == "placement" for m in live.result.notes())


def test_fabric_tuning_choice_reaches_the_engine_and_lowers_multi_node_figures(make_panel,
                                                                              qtbot):
    from PySide6.QtCore import Qt

    from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING

    panel = make_panel(_example("fat-tree-2tier.yaml"))
    tuned = panel.flush().result
    assert tuned.fabric_tuning == DEFAULT_FABRIC_TUNING
    assert panel.fabric_combo.currentData() == DEFAULT_FABRIC_TUNING
    panel.fabric_combo.setFocus()
    qtbot.keyClick(panel.fabric_combo, Qt.Key.Key_Down)
    default = panel.flush().result
    assert panel.fabric_combo.currentData() == "typical-defaults"
    assert default.fabric_tuning == "typical-defaults"
    big = 16 * 2**30
    assert (default.point_at("all_gather", big).busbw_GBps
            < tuned.point_at("all_gather", big).busbw_GBps)
    assert any(m.code == "fabric_tuning" for m in default.notes())


@pytest.mark.slow
def test_power_tile_and_cost_tab_show_one_pue_for_a_liquid_cooled_design(make_panel):
    # a GB200 NVL72 rack: most of its heat goes to liquid, so its PUE is below the air 1.3;
    # the Power tile and the Cost tab use the same figure until the user sets one
    panel = make_panel(_example("gb200-nvl72.yaml"))
    panel.flush()
    tab = panel.cost_tab
    panel.show_tab("cost")
    tab.flush()
    tile = panel.current.result.power.pue
    assert tile < 1.3
    assert tab.report().assumptions.pue == pytest.approx(tile, abs=1e-4)
    detail = panel.headline.tiles["per_gpu"].detail.text()
    shown = re.search(r"\(PUE ([0-9.]+)\)", detail)
    assert shown and len(shown[1]) <= 4 and float(shown[1]) == pytest.approx(tile, abs=0.005)
    panel.pue_spin.setValue(1.5)  # the user's PUE wins in both
    panel.flush()
    tab.flush()
    assert panel.current.result.power.pue == tab.report().assumptions.pue == 1.5


def test_the_workload_tab_estimates_under_the_panels_fabric_setting(make_panel, qtbot):
    """Issue 33: the training estimate takes the fabric tuning as an input; the Workload tab
    follows the panel's Fabric choice, so its data-parallel exchange across nodes slows down
    with NCCL's defaults as the Bandwidth tab's figures do."""
    from PySide6.QtCore import Qt

    panel = make_panel(_example("fat-tree-2tier.yaml"))
    tab = panel.workload
    panel.tabs.setCurrentWidget(panel.workload_modes)
    tab.model_combo.setCurrentText("llama3-8b")
    tab.layout_combo.setCurrentText("manual")
    tab.tp.setValue(8)
    tab.gbs.setValue(64)
    tuned = tab.flush().estimate
    assert tuned is not None and tuned.fabric_tuning == "vendor-tuned"
    panel.fabric_combo.setFocus()
    qtbot.keyClick(panel.fabric_combo, Qt.Key.Key_Down)
    plain = tab.flush().estimate
    assert plain.fabric_tuning == "typical-defaults"
    dp = [k for k in plain.comm if k.startswith("dp_")]
    assert dp and all(plain.comm[k]["busbw_GBps"] < tuned.comm[k]["busbw_GBps"] for k in dp)
    assert plain.step_time_s > tuned.step_time_s
