"""The 14-rack GB200 NVL72 SuperPOD fitted on a large screen (issue 38 item 8): it was 14
unlabelled 8-px squares along the top of empty SU areas. Collapsed, a rack-scale system now
covers the area its members take, so its SU is filled with its racks, each named."""

from __future__ import annotations

import pytest
from designer_fixtures import large_design_window

from rackdesigner.generators import generate

pytest.importorskip("pytestqt")


@pytest.fixture(params=[(2560, 1600), (1920, 1050)], ids=["2560x1600", "1920x1050"])
def fitted(qtbot, tmp_path, catalog, request):
    layout = generate("superpod", catalog=catalog, system="gb200-nvl72", racks=14)
    window = large_design_window(qtbot, tmp_path, layout)
    window.resize(*request.param)  # large screens: fitted, the overview (not the far blocks)
    window.view.fit()
    window.flush()
    return window


def _racks(window):
    layout = window.document.layout
    return [g.id for g in layout.groups() if g.template == "gb200-nvl72"]


def test_each_rack_is_a_readable_named_tile_at_fit(fitted):
    from rackdesigner.ui.canvas.name_forms import short_forms
    from rackdesigner.ui.canvas.names import screen_rect
    from rackdesigner.ui.canvas.overlay import group_labels

    view, scene, layout = fitted.view, fitted.scene, fitted.document.layout
    assert scene.level == "overview"
    racks = _racks(fitted)
    assert len(racks) == 14
    labels = group_labels(view)
    for gid in racks:
        item = scene.item_for_group[gid]
        assert item.isVisible()
        box = screen_rect(view, item.frame_rect())
        assert box.width() >= 15 and box.height() >= 100, (gid, box)
        name = layout.group(gid).label
        forms = (name, *short_forms(name), name.split()[-1])  # its number, packed in
        named = [rect for rect, text, _k in labels if text.splitlines()[0] in forms
                 and rect.intersects(box.adjusted(-4, -4, 4, 4))]
        assert named, f"{name} has no name on screen"


def test_the_racks_fill_their_su(fitted):
    scene, layout = fitted.scene, fitted.document.layout
    for su in (g for g in layout.groups() if g.kind == "su"):
        frame = scene.item_for_group[su.id]
        if not frame.isVisible() or frame.block:
            continue
        area = frame.frame_rect()
        tiles = [scene.item_for_group[g].frame_rect() for g in _racks(fitted)
                 if layout.group(g).parent == su.id]
        covered = sum(t.width() * t.height() for t in tiles)
        assert tiles and covered >= 0.3 * area.width() * area.height(), su.id
        assert all(area.contains(t) for t in tiles)


def test_zoomed_in_a_rack_is_the_usual_collapsed_box_again(fitted):
    from rackdesigner.ui import style

    view, scene = fitted.view, fitted.scene
    gid = _racks(fitted)[0]
    item = scene.item_for_group[gid]
    view.set_zoom(0.5)
    view.centerOn(item.frame_rect().topLeft())
    fitted.flush()
    assert scene.level == "detail"
    assert item.frame_rect().width() == pytest.approx(style.COLLAPSED_WIDTH)


def test_each_su_is_named_too(fitted):
    from rackdesigner.ui.canvas.name_forms import short_forms
    from rackdesigner.ui.canvas.overlay import group_labels

    layout = fitted.document.layout
    shown = {text.splitlines()[0] for _r, text, _k in group_labels(fitted.view)}
    for su in (g for g in layout.groups() if g.kind == "su"):
        assert shown & {su.label, *short_forms(su.label)}, f"{su.label} is not named"


def test_a_design_opened_over_another_is_named_as_when_opened_alone(qtbot, tmp_path, catalog):
    """Opened over the NVL72 SuperPOD (same group ids, "rack-1.group"…), the 128-node DGX B200
    SuperPOD had its racks' names placed over the NVL72 racks' blocks: "SU 1" over SCR 1, a
    stray "SCR 1" in SU 1, "SCR 16 / 16 GPUs" over SU 4's SCR 5 (the far lines kept the
    previous design's route plan while its blocks were opening)."""
    from PySide6.QtCore import QSettings

    from rackdesigner.io import save_layout
    from rackdesigner.ui import MainWindow
    from rackdesigner.ui.canvas.overlay import group_labels

    nvl72, b200 = tmp_path / "nvl72.yaml", tmp_path / "b200.yaml"
    save_layout(generate("superpod", catalog=catalog, system="gb200-nvl72", racks=14), nvl72)
    save_layout(generate("superpod", catalog=catalog, system="dgx-b200", nodes=128), b200)

    def names_after(*paths):
        settings = QSettings(str(tmp_path / f"s{len(paths)}.ini"), QSettings.Format.IniFormat)
        window = MainWindow(catalog=catalog, settings=settings)
        qtbot.addWidget(window)
        window.resize(1920, 1020)
        window.show()
        qtbot.waitExposed(window)
        for path in paths:
            assert window.files.open_file(str(path))
            window.flush()
            qtbot.wait(300)
        return sorted((r.getRect(), text) for r, text, _k in group_labels(window.view))

    alone = names_after(b200)
    assert any(text == "SCR 16" for _r, text in alone)
    assert names_after(nvl72, b200) == alone
