"""The canvas at scale (issue 18, item 3): zoomed far out a SuperPOD is drawn as one block per
scalable unit and switch tier with its counts, and the links between two blocks as one bundle;
zooming in opens the blocks on screen only; edits update the blocks and bundles they touch."""

from __future__ import annotations

import pytest
from designer_fixtures import large_design_window
from PySide6.QtWidgets import QApplication

from rackdesigner.commands import RemoveItems
from rackdesigner.commands.failures import toggle_failed
from rackdesigner.generators import generate
from rackdesigner.ui.canvas.overlay import bundle_labels, group_labels
from rackdesigner.ui.canvas.view import FAR_ZOOM


@pytest.fixture(scope="module")
def superpod(catalog):
    return generate("superpod", catalog=catalog, system="dgx-h100", sus=2)


@pytest.fixture
def window(qtbot, tmp_path, superpod):
    win = large_design_window(qtbot, tmp_path, superpod)
    win.view.set_zoom(FAR_ZOOM * 0.9)  # far out: aggregate blocks
    win.flush()
    return win


def _gpus(layout, group_id: str) -> int:
    return sum(1 for d in layout.group_devices(group_id) if layout.spec(d).kind == "gpu")


def _switch(layout, group_id: str) -> str:
    """A leaf switch of an SU (its GPUs are inside DGX nodes the generator collapses)."""
    return next(d for d in layout.group_devices(group_id) if layout.spec(d).kind == "switch")


def _spine_cell(scene) -> str:
    return next(g for g in scene.cells() if scene.layout.group(g).kind != "su")


def _between(layout, a: str, b: str) -> list[str]:
    """Links with one end in group a and the other in group b."""
    in_a, in_b = set(layout.group_devices(a)), set(layout.group_devices(b))
    return [lk.id for lk in layout.links()
            if (lk.a.device in in_a and lk.b.device in in_b)
            or (lk.a.device in in_b and lk.b.device in in_a)]


@pytest.mark.slow
def test_far_out_each_su_is_one_block_with_its_gpu_count(window):
    scene, layout = window.scene, window.document.layout
    assert scene.level == "far"
    sus = [g.id for g in layout.groups() if g.kind == "su"]
    assert len(sus) == 2
    for su in sus:
        block = scene.item_for_group[su]
        assert block.isVisible() and block.block
        assert block.stats.gpus == _gpus(layout, su) > 200
        assert block.stats.devices == len(layout.group_devices(su))
    # what is inside a block has no item of its own: the scene is a few dozen items
    gpu = next(d for d in layout.group_devices(sus[0]) if layout.spec(d).kind == "gpu")
    assert not scene.shows(gpu) and gpu not in scene.item_for_device
    assert len(scene.items()) < layout.device_count() / 10
    # the counts are written at screen size under the block's name
    texts = [text for _rect, text, _kind in group_labels(window.view)]
    assert any(f"{_gpus(layout, sus[0]):,} GPUs" in text for text in texts)


@pytest.mark.slow
def test_links_between_two_blocks_are_one_bundle_with_their_count(window):
    scene, layout = window.scene, window.document.layout
    spine = _spine_cell(scene)
    bundle = scene.bundles[frozenset(("su-1", spine))]
    links = _between(layout, "su-1", spine)
    assert sorted(bundle.link_ids) == sorted(links) and len(links) > 10
    assert bundle.count == sum(layout.link(k).count for k in links)  # cables, as on wires
    labels = {b.key: text for _rect, text, b in bundle_labels(window.view)}
    assert labels[bundle.key].startswith(f"×{bundle.count:,}")


@pytest.mark.slow
def test_zooming_in_opens_only_the_blocks_on_screen(window):
    scene, view, layout = window.scene, window.view, window.document.layout
    leaf = _switch(layout, "su-1")
    view.set_zoom(1.0)
    view.centerOn(scene.object_point(leaf))
    window.flush()
    assert scene.level == "detail"
    assert scene.shows(leaf)
    far_away = _switch(layout, "su-2")
    assert far_away not in scene.item_for_device  # su-2 is off screen: still a block
    assert scene.item_for_group["su-2"].block
    view.set_zoom(FAR_ZOOM * 0.9)
    window.flush()
    assert not scene.shows(leaf) and scene.item_for_group["su-1"].block


@pytest.mark.slow
def test_failing_a_device_counts_in_its_block_and_undo_restores(window):
    scene, doc = window.scene, window.document
    layout = doc.layout
    gpu = next(d for d in layout.group_devices("su-2") if layout.spec(d).kind == "gpu")
    block = scene.item_for_group["su-2"]
    other = scene.item_for_group["su-1"]
    assert block.stats.failed == 0
    doc.push(toggle_failed(doc.layout, [gpu]))
    window.flush()
    assert block.stats.failed == 1
    assert scene.item_for_group["su-2"] is block  # updated, not rebuilt
    assert other.stats.failed == 0
    doc.undo_stack.undo()
    window.flush()
    assert block.stats.failed == 0


@pytest.mark.slow
def test_deleting_a_link_updates_its_bundle_and_undo_restores(window):
    scene, doc = window.scene, window.document
    spine = _spine_cell(scene)
    key = frozenset(("su-2", spine))
    bundle = scene.bundles[key]
    untouched = scene.bundles[frozenset(("su-1", spine))]
    count = bundle.count
    link = _between(doc.layout, "su-2", spine)[0]
    cables = doc.layout.link(link).count
    doc.push(RemoveItems(links=[link]))
    window.flush()
    assert scene.bundles[key] is bundle and bundle.count == count - cables
    assert link not in bundle.link_ids
    assert scene.bundles[frozenset(("su-1", spine))] is untouched
    doc.undo_stack.undo()
    window.flush()
    assert bundle.count == count and link in bundle.link_ids


@pytest.mark.slow
def test_selecting_an_object_inside_a_block_goes_to_it(window):
    scene, view, layout = window.scene, window.view, window.document.layout
    leaf = _switch(layout, "su-2")
    window.editor.select_ids([leaf])  # as a row of the what-if table or heat tab does
    QApplication.processEvents()
    assert scene.shows(leaf) and scene.item_for_device[leaf].isSelected()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert visible.contains(scene.item_for_device[leaf].sceneBoundingRect())
    assert window.editor.selection()[0] == [leaf]  # F would fail the switch, not its SU


def _bundles(scene) -> dict:
    return {key: sorted(bundle.link_ids) for key, bundle in scene.bundles.items()}


@pytest.mark.slow
def test_zooming_panning_and_editing_keep_the_scene_as_a_fresh_build_draws_it(window):
    from rackdesigner.ui.canvas.scene import RackScene

    scene, view, doc = window.scene, window.view, window.document
    layout = doc.layout
    leaf = _switch(layout, "su-2")
    steps = [(0.06, "su-1"), (0.1, "su-1"), (1.0, leaf), (0.1, _spine_cell(scene)), (0.3, "su-1"),
             (FAR_ZOOM * 0.9, None)]
    for zoom, target in steps:
        view.set_zoom(zoom)
        if target is not None:
            view.centerOn(scene.object_point(target))
        window.flush()
        if zoom == 1.0:  # an edit while zoomed in: a cable to another block goes
            cable = next(lk.id for lk in layout.links_of(leaf)
                         if scene._cell_of(lk.a.device) != scene._cell_of(lk.b.device))
            doc.push(RemoveItems(links=[cable]))
            window.flush()
        fresh = RackScene(window)  # parented: Qt deletes it with the window
        fresh.lazy = True
        fresh.level = scene.level
        fresh.request_area(view.visible_scene_rect(), view.zoom())
        fresh.set_layout(doc.layout)
        assert fresh.open_cells() == scene.open_cells(), (zoom, target)
        assert _bundles(fresh) == _bundles(scene), (zoom, target)
        assert set(fresh.item_for_device) == set(scene.item_for_device), (zoom, target)


@pytest.mark.slow
def test_a_bundle_between_blocks_shows_its_hottest_member_under_a_heat_map(window):
    from rackdesigner.analysis.heat import heat_map

    scene, layout = window.scene, window.document.layout
    heat = heat_map(layout, "all_to_all", 1 << 26)
    scene.set_heat(heat)
    window.flush()
    bundle = scene.bundles[frozenset(("su-1", _spine_cell(scene)))]
    hottest = max(heat.loads[k].utilisation for k in bundle.link_ids if k in heat.loads)
    assert hottest > 0 and bundle.heat == hottest
    labels = {b.key: text for _rect, text, b in bundle_labels(window.view)}
    assert labels[bundle.key].endswith(f"peak {hottest:.0%}")


@pytest.mark.slow
def test_deleting_a_whole_su_and_undoing_it_brings_its_block_back(window):
    from rackdesigner.ui.canvas.scene import RackScene

    scene, doc = window.scene, window.document
    spine = _spine_cell(scene)
    stats = scene.item_for_group["su-2"].stats
    links = sorted(scene.bundles[frozenset(("su-2", spine))].link_ids)
    doc.push(RemoveItems(groups=["su-2"]))
    window.flush()
    assert "su-2" not in scene.item_for_group and "su-2" not in scene.cells()
    assert not any("su-2" in key for key in scene.bundles)
    doc.undo_stack.undo()
    window.flush()
    block = scene.item_for_group["su-2"]
    assert block.isVisible() and block.block and block.stats == stats
    assert sorted(scene.bundles[frozenset(("su-2", spine))].link_ids) == links
    fresh = RackScene(window)
    fresh.lazy, fresh.level = True, scene.level
    fresh.request_area(window.view.visible_scene_rect(), window.view.zoom())
    fresh.set_layout(doc.layout)
    assert _bundles(fresh) == _bundles(scene)


def _drawn_between(scene, link) -> frozenset[str] | None:
    """The bundle a link is drawn in, from its two ends as the scene shows them: each end's
    visible endpoint, and a wire to a closed block ending at the other end's block."""
    a, b = scene._endpoint(link.a.device), scene._endpoint(link.b.device)
    if a == b:
        return None
    ca, cb = scene._cell_of(link.a.device), scene._cell_of(link.b.device)
    if ca != cb:
        if a == ca and cb is not None:
            b = cb
        elif b == cb and ca is not None:
            a = ca
    return frozenset((a, b))


@pytest.mark.parametrize("zoom", [FAR_ZOOM * 0.9, 0.1, 1.0])
def test_opening_files_every_link_in_the_bundle_its_own_ends_give(window, zoom):
    """The open files all links in one pass (ends worked out once per group); each link sits
    in the bundle its two ends give, and every bundle is indexed under both its endpoints."""
    scene = window.scene
    window.view.set_zoom(zoom)
    window.flush()
    scene.set_layout(window.document.layout)  # a fresh filing at this level
    links = list(scene.layout.links())
    assert any(scene._link_key.get(lk.id) for lk in links)
    for lk in links:
        assert scene._link_key.get(lk.id) == _drawn_between(scene, lk), lk.id
    for key, ids in scene._bundle_links.items():
        assert ids, key
        assert all(key in scene._endpoint_bundles[end] for end in key)
        assert set(scene.bundles[key].link_ids) == ids
        layout = scene.layout
        rates = []  # each link's rate: the slower of its two ends' port groups
        for link_id in ids:
            lk = layout.link(link_id)
            ends = [layout.spec(e.device).port(e.group) for e in (lk.a, lk.b)]
            rates.append(lk.count * min(g.rate_gbps for g in ends))
        assert scene.bundles[key].bandwidth_gbps == pytest.approx(sum(rates))


def test_a_blocks_area_and_counts_are_its_members_boxes_and_figures(window):
    """A block's rectangle covers exactly its members' boxes and its counts are their sums
    (worked out once per model: a block of thousands of devices has a few models)."""
    from PySide6.QtCore import QRectF

    from rackdesigner.ui.canvas.cells import block_stats, members_rect
    from rackdesigner.ui.canvas.items import device_size

    layout = window.document.layout
    members = layout.group_devices("su-1")
    boxes = QRectF()
    for d in members:
        x, y = layout.device(d).pos
        boxes = boxes.united(QRectF(x, y, *device_size(layout.spec(d))))
    assert members_rect(layout, members) == boxes
    failed = set(members[:3])
    stats = block_stats(layout, members, failed)
    assert stats.gpus == _gpus(layout, "su-1") > 0
    assert stats.failed == 3
    assert stats.power_w == pytest.approx(sum(layout.spec(d).power.max_w or 0.0
                                              for d in members if layout.spec(d)))
