"""Issue 38 item 18: the same finding on many objects is one line with a count and examples
(the CLI and Problems); the JSON keeps every finding and its objects."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.model import check_layout
from rackdesigner.model.finding_groups import group_findings, message_shape
from rackdesigner.model.rules import Finding


@pytest.fixture(scope="module")
def slow_nics():
    """16 DGX B200 (400 Gb/s NICs) on XDR leaves (800 Gb/s ports): 128 links say one thing."""
    return generate("rail-optimized", system="dgx-b200", nodes=16, switch="q3400")


def test_findings_that_differ_only_in_the_designs_names_are_one_group(slow_nics):
    found = check_layout(slow_nics)
    groups = group_findings(slow_nics, found)
    assert sum(len(g) for g in groups) == len(found) >= 128
    biggest = max(groups, key=len)
    assert len(biggest) == 128 and biggest.code == "rate-mismatch"
    assert biggest.examples() == [f.objects[0] for f in biggest.findings[1:4]]
    assert "[and 127 more like it: " in biggest.summary()


def test_figures_and_words_that_are_not_the_designs_names_keep_findings_apart(slow_nics):
    link = next(iter(slow_nics.links())).id
    other = [f"link {link}: runs at 400 Gb/s", f"link {link}: runs at 200 Gb/s",
             f"link {link}: runs at 400 Gb/s on no-such-device"]
    shapes = {message_shape(slow_nics, m) for m in other}
    assert len(shapes) == 3
    assert link not in message_shape(slow_nics, other[0])
    findings = [Finding("warning", "x", m, (link,)) for m in other]
    assert len(group_findings(slow_nics, findings)) == 3
    assert len(group_findings(slow_nics, findings[:1] * 2)) == 1


@pytest.mark.parametrize("space", [" ", "  ", "\t", "\n", " \u00a0"])
def test_names_are_taken_out_whatever_the_white_space_between_words(slow_nics, space):
    """The fast split on plain spaces and the general one agree: ids between any white space
    are taken out, and the space itself is kept (messages differing in it stay apart)."""
    a, b = (lk.id for lk in list(slow_nics.links())[:2])
    one = message_shape(slow_nics, f"link{space}{a}:{space}runs at 400 Gb/s")
    assert one == message_shape(slow_nics, f"link{space}{b}:{space}runs at 400 Gb/s")
    assert a not in one and one.endswith(f"{space}runs at 400 Gb/s")
    if space != " ":
        assert one != message_shape(slow_nics, f"link {a}: runs at 400 Gb/s")


def test_validate_prints_one_line_per_kind_of_finding_and_json_keeps_every_object(
        slow_nics, tmp_path, capsys):
    path = tmp_path / "d.yaml"
    save_layout(slow_nics, path)
    assert main(["validate", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "[and 127 more like it: link-" in lines[0]
    assert lines[-1].endswith(f"{slow_nics.device_count()} devices, "
                              f"{slow_nics.link_count()} links")
    assert main(["validate", "--all", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 129
    assert main(["validate", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "rackdesigner.validate/1"
    (report,) = data["files"]
    (group,) = report["groups"]
    assert group["count"] == len(group["findings"]) == report["warnings"] == 128
    objects = [o for f in group["findings"] for o in f["objects"]]
    assert len(set(objects)) == 128 and all(f["line"] for f in group["findings"])


@pytest.mark.slow
def test_problems_shows_a_finding_on_many_objects_as_one_row_that_opens(qtbot, slow_nics):
    from rackdesigner.ui.problems import ProblemsWidget

    widget = ProblemsWidget(debounce_ms=0)
    qtbot.addWidget(widget)
    widget.set_layout(slow_nics)
    qtbot.waitUntil(lambda: widget.shown_revision is not None, timeout=20000)
    tree = widget.tree
    assert tree.topLevelItemCount() == 1
    row = tree.topLevelItem(0)
    assert row.childCount() == 128 and "127 more like it" in row.text(1)
    assert row.text(2) == "128 objects"
    assert "128 warnings (1 kind)" in widget.summary.text()
    with qtbot.waitSignal(widget.objects_activated) as seen:
        tree.itemClicked.emit(row, 1)
    assert len(seen.args[0]) == 128
    with qtbot.waitSignal(widget.objects_activated) as seen:
        tree.itemClicked.emit(row.child(5), 1)
    assert seen.args[0] == tuple(row.child(5).data(0, 256))


def test_a_design_read_from_a_file_and_one_edited_since_group_alike(slow_nics, tmp_path):
    """The id test reads the state's maps directly: plain dicts for a file just read, tries
    once edited; both must take out the same names (and a removed device's name no longer)."""
    from rackdesigner.io import load_layout

    path = tmp_path / "d.yaml"
    save_layout(slow_nics, path)
    read = load_layout(path)
    found = check_layout(read)
    shapes = [[g.first.message for g in group_findings(lay, found)]
              for lay in (slow_nics, read)]
    assert shapes[0] == shapes[1]
    device = next(f.objects[0] for f in found if f.code == "rate-mismatch")
    link = read.link(device)
    message = f"link {link.id}: {link.a.device}:x runs at 1 Gb/s"
    before = message_shape(read, message)
    for lid in list(read.state.link_ids_of(link.a.device)):
        read.remove_link(lid)  # the first edit: the state's maps become tries
    read.remove_device(link.a.device)
    after = message_shape(read, message)
    assert link.a.device not in before and link.a.device in after
