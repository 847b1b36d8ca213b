"""Fail / Restore in the designer: key F and the context menu are one undo step each, failed
devices stay drawn (greyed), the panel compares with the intact design by itself."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from designer_fixtures import two_node_window


@pytest.fixture
def window(qtbot, tmp_path):
    return two_node_window(qtbot, tmp_path)


def _fail_leaf_with_f(window, qtbot):
    from PySide6.QtCore import Qt

    window.editor.select_ids(["leaf-1"])
    window.view.setFocus()
    qtbot.keyClick(window.view.viewport(), Qt.Key.Key_F)
    window.scene.flush()
    return window.simulation_panel.flush()


@pytest.mark.slow
def test_key_f_fails_the_leaf_and_the_panel_shows_what_it_costs(window, qtbot):
    stack = window.document.undo_stack
    before = stack.count()
    intact = window.simulation_panel.current.result.to_dict()
    live = _fail_leaf_with_f(window, qtbot)
    layout = window.document.layout
    assert layout.device("leaf-1").status == "failed"
    assert stack.count() == before + 1
    assert window.scene.item_for_device["leaf-1"].failed  # still drawn, greyed
    assert window.scene.item_for_device["leaf-1"].isVisible()
    window.flush_selection()
    window.inspector.flush()
    assert "failed" in window.inspector.device_id.text()
    # the two nodes hang off the one leaf: the design falls apart and the panel says so
    assert live.impact is not None and live.impact.partitioned
    bar = window.simulation_panel.failure_bar
    assert bar.isVisible() and "leaf-1" in bar.label.text()
    assert "partitioned" in bar.label.text()
    assert "vs intact" in window.simulation_panel.headline.tiles["bisection"].delta.text()
    # undo: one step back to the identical figures, no what-if bar
    stack.undo()
    window.scene.flush()
    live = window.simulation_panel.flush()
    assert layout.device("leaf-1").status == "active"
    assert not window.scene.item_for_device["leaf-1"].failed
    assert live.impact is None and not bar.isVisible()
    assert live.result.to_dict() == intact


@pytest.mark.slow
def test_context_menu_offers_fail_and_restore_all(window, qtbot):
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    window.scene.flush()
    item = window.scene.item_for_device["leaf-1"]
    window.editor.select_ids(["leaf-1"])
    pos = window.view.mapFromScene(item.sceneBoundingRect().center())
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                              window.view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(window.view.viewport(), event)
    menu = window.view.context_menu
    texts = [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]
    assert "Fail / Restore" in texts and "Restore All Failures" in texts
    menu.close()
    window.actions_.fail_action.trigger()
    assert window.document.layout.device("leaf-1").status == "failed"
    window.actions_.restore_all_action.trigger()
    assert window.document.layout.device("leaf-1").status == "active"


@pytest.mark.slow
def test_heat_map_colours_links_lists_the_hottest_and_selects_them(window, qtbot):
    from PySide6.QtCore import Qt

    panel = window.simulation_panel
    window.actions_.heat_action.trigger()
    panel.flush()
    tab = panel.heat_tab
    assert tab.isVisible() and tab.heat is not None and tab.heat.collective == "all_to_all"
    loaded = [b for b in window.scene.bundles.values() if b.heat is not None and b.heat >= 0]
    assert loaded and "all_to_all" in window.scene.heat_title  # the legend's title
    # a bundle shows its hottest member
    some = loaded[0]
    assert some.heat == max(tab.heat.utilisation(k) or 0 for k in some.link_ids)
    # rows sorted hottest first; clicking one selects that link on the canvas
    first = tab.table.topLevelItem(0)
    utils = [tab.table.topLevelItem(i).data(3, Qt.ItemDataRole.UserRole)
             for i in range(tab.table.topLevelItemCount())]
    assert utils == sorted(utils, reverse=True)
    rect = tab.table.visualItemRect(first)
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    _, links, _ = window.editor.selection()
    assert first.data(0, Qt.ItemDataRole.UserRole + 1) in links
    # another traffic recolours; off restores the normal colours
    tab.collective_combo.setCurrentText("all_reduce")
    panel.flush()
    assert tab.heat.collective == "all_reduce"
    window.actions_.heat_action.trigger()
    assert all(b.heat is None for b in window.scene.bundles.values())
    assert window.scene.heat_title == ""


@pytest.mark.slow
def test_single_failures_dialog_runs_on_the_worker_and_rows_select(window, qtbot):
    from PySide6.QtCore import Qt

    window.actions_.single_failures_action.trigger()
    dialog = window.single_failures_dialog
    dialog.kind_combo.setCurrentText("link")
    with qtbot.waitSignal(dialog.finished_rows, timeout=60_000) as done:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert done.args[0] == len(dialog.rows) > 0
    layout = window.document.layout
    assert sum(r.count for r in dialog.rows) == layout.link_count()
    # worst first: the row on top strands GPUs or loses the most
    top = dialog.rows[0].impact
    assert all(r.impact.severity() <= top.severity() for r in dialog.rows)
    # what failed tells the rows apart: its column is never cut (issue 26, item 8)
    metrics = dialog.table.fontMetrics()
    widest = max(metrics.horizontalAdvance(dialog.table.topLevelItem(i).text(0))
                 for i in range(dialog.table.topLevelItemCount()))
    assert dialog.table.columnWidth(0) >= widest
    # sort by a figure column, then click a row: its links are selected on the canvas
    dialog.table.sortItems(2, Qt.SortOrder.DescendingOrder)
    item = dialog.table.topLevelItem(0)
    rect = dialog.table.visualItemRect(item)
    qtbot.mouseClick(dialog.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    _, links, _ = window.editor.selection()
    assert set(item.data(0, Qt.ItemDataRole.UserRole + 1)) <= set(links)
    # the document itself is untouched: nothing is marked failed
    assert not any(k.status == "failed" for k in layout.links())


@pytest.mark.slow
def test_single_failures_name_what_failed_as_the_canvas_does(window, qtbot):
    """Round-4 walk: rows read "rack-69.group  (PARTITIONS)", "any of 64: rack-1.group …",
    the ids, where the canvas names the racks ("Spine rack 1")."""
    from PySide6.QtCore import Qt

    window.actions_.single_failures_action.trigger()
    dialog = window.single_failures_dialog
    dialog.kind_combo.setCurrentText("node")
    with qtbot.waitSignal(dialog.finished_rows, timeout=60_000):
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    layout = window.document.layout
    for i in range(dialog.table.topLevelItemCount()):
        item = dialog.table.topLevelItem(i)
        members = item.data(0, Qt.ItemDataRole.UserRole + 1)
        names = [layout.group(m).label if layout.has_group(m) else layout.device(m).label
                 for m in (members[0], members[-1])]
        assert names[0] in item.text(0) and names[-1] in item.text(0), item.text(0)
        assert all(n != m for n, m in zip(names, (members[0], members[-1]), strict=True))
    dialog.close()
    dialog.close()


@pytest.mark.slow
def test_a_failed_rack_greys_everything_in_it_and_restore_all_is_one_step(window):
    from rackdesigner.commands.failures import set_status

    layout = window.document.layout
    rack = next(g.id for g in layout.groups() if g.kind == "rack")
    inside = layout.group_devices(rack)
    stack = window.document.undo_stack
    window.document.push(set_status(layout, [rack, "link-1"], "failed"))
    window.scene.flush()
    assert all(window.scene.item_for_device[d].failed for d in inside)
    assert window.scene.item_for_group[rack].failed
    before = stack.count()
    window.actions_.restore_all_action.trigger()
    window.scene.flush()
    assert stack.count() == before + 1
    assert not any(window.scene.item_for_device[d].failed for d in inside)
    assert all(b.failed == "" for b in window.scene.bundles.values())


@pytest.mark.slow
def test_workload_estimate_compares_with_the_intact_design_under_failures(qtbot, tmp_path):
    from rackdesigner.commands.failures import restore_all, set_status
    from rackdesigner.ui.panel import SimulationPanel
    from tests.workload_designs import SMALL_MODEL, tor_cluster

    tor = tor_cluster(nodes=8, spines=4)  # every ring hop between nodes crosses a spine
    panel = SimulationPanel(tor, debounce_ms=20)
    qtbot.addWidget(panel, before_close_func=lambda p: p.close_panel())
    panel.show()
    panel.show_tab("workload")
    tab = panel.workload
    model = tmp_path / "small.yaml"
    model.write_text(SMALL_MODEL)
    tab.load_model_file(str(model))
    tab.layout_combo.setCurrentText("manual")
    tab.tp.setValue(1)
    tab.gbs.setValue(64)
    intact = tab.flush().estimate
    set_status(tor, ["spine-3", "spine-4"], "failed").apply(tor)
    outcome = tab.flush()
    assert outcome.failed == ("spine-3", "spine-4")
    assert outcome.intact.step_time_s == pytest.approx(intact.step_time_s)
    assert outcome.estimate.breakdown["dp_exposed_s"] > 2.5 * intact.breakdown["dp_exposed_s"]
    assert "(+" in tab.figure_text("step") and "intact" in tab.status.text()
    assert tab.axis.labels[-1].startswith("intact design")
    restore_all(tor).apply(tor)
    outcome = tab.flush()
    assert not outcome.failed and outcome.estimate.step_time_s == pytest.approx(
        intact.step_time_s)


@pytest.mark.slow
def test_a_failed_node_draws_no_power_in_its_rack(window):
    from rackdesigner.commands.failures import set_status

    panel = window.simulation_panel
    layout = window.document.layout
    node = next(g.id for g in layout.groups() if g.kind == "node")
    rack = next(layout.device(d).rack for d in layout.group_devices(node)
                if layout.device(d).rack)
    before = sum(panel.current.rack_split[rack].values())
    window.document.push(set_status(layout, [node], "failed"))
    live = panel.flush()
    after = sum(live.rack_split[rack].values())
    assert after < before
    assert after == pytest.approx(live.result.power.by_rack[rack].max_w, rel=1e-6)


@pytest.mark.slow
def test_heat_map_under_the_workload_tab_job_says_when_none_is_set(window, qtbot):
    panel = window.simulation_panel
    tab = panel.heat_tab
    window.actions_.heat_action.trigger()
    panel.flush()
    tab.collective_combo.setCurrentText("workload (TP/PP/DP/EP)")
    assert not tab.size_combo.isEnabled()
    # the Workload tab has not searched for its best layout yet: it says so and starts it
    assert tab.heat is None and "Finding the best layout" in tab.summary.text()
    workload = panel.workload
    workload.flush()
    panel.flush()
    found = workload.current.estimate.job  # the best layout drawn, as the estimate found it
    assert tab.heat is not None and (found.dp == 1 or f"DP{found.dp}" in tab.heat.label)
    workload.layout_combo.setCurrentText("manual")
    # "manual" starts from the layout the search found (issue 26), then TP 8 and nothing else
    assert (workload.tp.value(), workload.pp.value()) == (found.tp, found.pp)
    for box in (workload.pp, workload.cp, workload.vp, workload.ep):
        box.setValue(1)
    workload.tp.setValue(8)
    panel.flush()
    heat = tab.heat
    assert heat is not None and heat.label and "busiest exchange" in window.scene.heat_title
    assert {x.cls for x in heat.exchanges} == {"TP", "DP"}
    classes = {tab.table.topLevelItem(i).text(4) for i in range(tab.table.topLevelItemCount())}
    assert classes <= {"TP", "DP"} and classes
    assert "while an exchange runs" in tab.summary.text()  # the definition, stated
    nvlink = [b for b in window.scene.bundles.values() if b.heat is not None and b.heat >= 0
              and any(heat.link_class.get(k) == "TP" for k in b.link_ids)]
    assert nvlink, "TP 8 inside a DGX colours its NVLinks"
    tab.collective_combo.setCurrentText("workload: DP only")
    panel.flush()
    assert set(tab.heat.link_class.values()) == {"DP"}
    # a job that cannot run here says why instead of a map
    workload.tp.setValue(3)
    panel.flush()
    assert tab.heat is None and "cannot run here" in tab.summary.text()
    tab.collective_combo.setCurrentText("all_to_all")
    panel.flush()
    assert tab.heat.collective == "all_to_all" and tab.size_combo.isEnabled()
    assert tab.table.topLevelItem(0).text(4) == "all_to_all"


@pytest.mark.slow
def test_single_failures_add_the_workload_tab_job_change_when_it_has_one(window, qtbot):
    from PySide6.QtCore import Qt

    window.actions_.single_failures_action.trigger()
    dialog = window.single_failures_dialog
    dialog.kind_combo.setCurrentText("node")
    with qtbot.waitSignal(dialog.finished_rows, timeout=60_000):
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    header = dialog.table.headerItem()
    assert "job tokens/s" not in [header.text(i) for i in range(header.columnCount())]
    assert "Set a job in the Workload tab" in dialog.status.text()
    workload = window.simulation_panel.workload
    workload.layout_combo.setCurrentText("manual")
    workload.tp.setValue(8)
    workload.gbs.setValue(64)
    with qtbot.waitSignal(dialog.finished_rows, timeout=60_000):
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    header = dialog.table.headerItem()
    labels = [header.text(i) for i in range(header.columnCount())]
    assert "job tokens/s" in labels and "Llama 3 8B" in dialog.status.text()
    # a failed node takes half the GPUs: the job (DP from the GPU count) runs at half the rate
    column = labels.index("job tokens/s")
    values = [dialog.table.topLevelItem(i).data(column, Qt.ItemDataRole.UserRole)
              for i in range(dialog.table.topLevelItemCount())]
    assert values and all(-0.6 < v < -0.4 for v in values)
    dialog.close()


def test_fail_costs_one_simulation_and_undo_or_restore_none(qtbot, monkeypatch):
    """The panel keeps the intact design's run: failing compares with it without simulating it
    again, and the Undo or Restore of the Fail shows it again without any simulation."""
    from rackdesigner.commands.failures import toggle_failed
    from rackdesigner.commands.history import History
    from rackdesigner.generators import generate
    from rackdesigner.ui.panel import SimulationPanel
    from rackdesigner.ui.panel import live as live_module

    layout = generate("superpod", system="dgx-h100", sus=1)
    panel = SimulationPanel(layout, debounce_ms=0)
    qtbot.addWidget(panel, before_close_func=lambda w: w.close_panel())
    intact = panel.flush().result.to_dict()
    runs = []
    real = live_module.simulate
    monkeypatch.setattr(live_module, "simulate",
                        lambda *a, **k: runs.append(1) or real(*a, **k))
    history = History(layout)
    leaf = next(d.id for d in layout.devices() if d.id.startswith("leaf"))
    history.push(toggle_failed(layout, [leaf]))
    failed = panel.flush()
    assert failed.impact is not None and len(runs) == 1  # the intact run was kept
    assert failed.impact.intact.to_dict() == intact and failed.impact.degraded_gpus > 0
    history.undo()
    back = panel.flush()
    assert back.impact is None and len(runs) == 1 and back.result.to_dict() == intact
    history.redo()
    history.push(toggle_failed(layout, [leaf]))  # Restore: a new command, the same design
    restored = panel.flush()
    assert restored.impact is None and restored.result.to_dict() == intact


@pytest.mark.slow
def test_single_failures_run_when_the_workload_tabs_job_does_not_fit_the_design(window, qtbot):
    """Issue 38 item 4: Single Failures refused to run while the Workload tab still held the
    previous design's job (sized for 1,024 GPUs on a 1,008-GPU design). It runs: without the
    job's columns, saying why, or with the job laid out again."""
    from PySide6.QtCore import Qt

    gpus = window.document.layout.index().counts()[0]["gpu"]
    workload = window.simulation_panel.workload
    workload.layout_combo.setCurrentText("manual")
    workload.tp.setValue(8)
    workload.pp.setValue(2 * gpus // 8)  # twice the design's GPUs: another design's job
    workload.gbs.setValue(64)
    window.simulation_panel.flush()
    window.actions_.single_failures_action.trigger()
    dialog = window.single_failures_dialog
    dialog.kind_combo.setCurrentText("node")
    with qtbot.waitSignal(dialog.finished_rows, timeout=60_000) as done:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert done.args[0] == len(dialog.rows) > 0, dialog.status.text()
    header = dialog.table.headerItem()
    labels = [header.text(i) for i in range(header.columnCount())]
    assert "job tokens/s" not in labels  # left out, and the dialog says why
    assert "The Workload tab's job is left out: " in dialog.status.text()
    assert "does not divide the 16 GPUs" in dialog.status.text()
    dialog.close()
