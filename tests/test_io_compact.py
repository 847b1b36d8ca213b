"""The compact layout form: nodes written once and placed N times, expanding to the same design
as the plain form, byte-identical re-save in each form, `rackdesigner convert`, located errors."""

from __future__ import annotations

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import LayoutFileError, dump_layout_text, load_layout, parse_layout_text
from rackdesigner.io.compact import dump_compact_text, is_compact, save_compact
from rackdesigner.io.writer import dump_plain_text


@pytest.fixture(scope="module")
def superpod():
    return generate("superpod", system="dgx-h100", sus=1)


@pytest.fixture(scope="module")
def nvl72pod():
    return generate("superpod", system="gb200-nvl72", racks=3)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "shorter"), [("superpod", 4), ("nvl72pod", 1.5)])
def test_compact_form_is_much_shorter_and_loads_to_the_same_design(name, shorter, request,
                                                                    catalog):
    layout = request.getfixturevalue(name)
    plain = dump_plain_text(layout)
    compact = dump_compact_text(layout)
    assert is_compact(compact) and not is_compact(plain)
    # DGX: 31 nodes of ~90 lines become 31 lines; NVL72: the template is one of 3 racks
    assert compact.count("\n") * shorter < plain.count("\n")
    back = parse_layout_text(compact, "c.yaml", catalog)
    assert back == layout
    # byte-identical re-save in each form, and the plain text of either is the same
    assert dump_layout_text(back) == compact
    assert dump_plain_text(back) == plain
    assert dump_compact_text(parse_layout_text(plain, "p.yaml", catalog)) == compact


def test_one_line_per_node_instance(superpod):
    compact = dump_compact_text(superpod)
    nodes = [g for g in superpod.groups() if g.template == "dgx-h100"]
    instances = compact.split("instances:\n")[1].split("groups:\n")[0].splitlines()
    assert len(instances) == len(nodes) == 31
    assert instances[0].startswith("- {id: dgx-1, of: dgx-h100, name: ")
    # the template holds one DGX H100: 8 GPUs
    assert compact.count("- {of: dgx-h100, id: gpu") == 8


def test_an_edited_node_is_written_plainly_and_still_round_trips(superpod, catalog):
    layout = superpod.copy()
    layout.update_device("dgx-5.gpu3", pos=(12345.5, 77.25))
    layout.remove_link("dgx-9.l0")
    compact = dump_compact_text(layout)
    # dgx-5's layout differs from the others: it becomes its own template, not a broken copy
    assert "- {id: dgx-h100-2" in compact or "dgx-h100-2" in compact
    back = parse_layout_text(compact, "c.yaml", catalog)
    assert back == layout
    assert dump_compact_text(back) == compact


def test_failed_parts_of_nodes_survive_the_compact_form(superpod, catalog):
    """A what-if saved in the compact form: a failed node, a failed NIC inside another and a
    failed NVLink inside a third come back failed (they were written as healthy copies)."""
    layout = superpod.copy()
    layout.update_group("dgx-3", status="failed")
    layout.update_device("dgx-7.nic7", status="failed")
    layout.update_link("dgx-9.l0", status="failed")
    compact = dump_compact_text(layout)
    back = parse_layout_text(compact, "c.yaml", catalog)
    assert back.group("dgx-3").status == "failed"
    assert back.device("dgx-7.nic7").status == "failed"
    assert back.link("dgx-9.l0").status == "failed"
    assert back == layout
    assert dump_compact_text(back) == compact
    assert dump_plain_text(back) == dump_plain_text(layout)


def test_the_compact_reader_uses_only_the_readers_public_api():
    """Issue 23 §6: one reader API, no private names across modules (`reader._Builder`...)."""
    import ast
    import inspect

    from rackdesigner.io import compact_read

    tree = ast.parse(inspect.getsource(compact_read))
    private = [f"{node.value.id}.{node.attr}" for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
               and node.value.id in ("reader", "fastread") and node.attr.startswith("_")]
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names if alias.name.startswith("_")]
    assert private == [] and imported == []


def test_document_settings_survive_the_compact_form(superpod, catalog):
    from rackdesigner.commands import run, set_sharp

    layout = superpod.copy()
    run(layout, set_sharp(True))  # SHARP on: a document setting, written only when on
    compact = dump_compact_text(layout)
    back = parse_layout_text(compact, "c.yaml", catalog)
    assert back.meta.sharp
    assert dump_plain_text(back) == dump_plain_text(layout)


def test_save_compact_is_atomic_and_load_layout_reads_it(superpod, tmp_path, monkeypatch):
    path = tmp_path / "pod.yaml"
    save_compact(superpod, path)
    assert load_layout(path) == superpod
    import os

    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    before = path.read_bytes()
    with pytest.raises(OSError):
        save_compact(generate("dgx-h100"), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["pod.yaml"]


@pytest.mark.parametrize(("old", "new", "nth", "message"), [
    ("- {id: dgx-2, of: dgx-h100,", "- {id: dgx-2, of: dgx-h999,", 0,
     "'of' must name a template"),
    ("- {id: dgx-2, of: dgx-h100,", "- {id: dgx-1, of: dgx-h100,", 1, "is used twice"),
    ("- {of: dgx-h100, id: gpu0, model: h100-sxm5,", "- {of: dgx-h100, id: gpu0, modle: x,", 0,
     "unknown key 'modle'"),
    ("schema_version: 1", "schema_version: 9", 0, "newer RackDesigner"),
])
def test_bad_compact_files_name_the_line(superpod, old, new, nth, message):
    text = dump_compact_text(superpod)
    assert old in text
    text = text.replace(old, new, 1)
    # the line of the nth line starting like the edited one (a duplicate is the second)
    line = [n for n, t in enumerate(text.splitlines(), 1) if t.startswith(new)][nth]
    with pytest.raises(LayoutFileError) as info:
        parse_layout_text(text, "c.yaml")
    assert str(info.value).startswith(f"c.yaml:{line}: "), str(info.value)
    assert message in str(info.value)


@pytest.mark.slow
def test_convert_verb_goes_both_ways_byte_for_byte(superpod, tmp_path, capsys):
    from rackdesigner.io import save_layout

    plain = tmp_path / "plain.yaml"
    save_layout(superpod, plain)
    assert main(["convert", str(plain), "-o", str(tmp_path / "c.yaml")]) == 0
    assert "compact form" in capsys.readouterr().out
    assert main(["convert", str(tmp_path / "c.yaml"), "-o", str(tmp_path / "p.yaml")]) == 0
    assert (tmp_path / "p.yaml").read_bytes() == plain.read_bytes()
    assert main(["validate", str(tmp_path / "c.yaml")]) == 0
    assert main(["convert", str(tmp_path / "missing.yaml"), "-o", str(tmp_path / "x")]) == 2


@pytest.mark.slow
def test_the_designer_saves_a_compact_file_back_in_the_compact_form(qtbot, tmp_path, superpod):
    from PySide6.QtCore import QSettings

    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui import MainWindow

    path = tmp_path / "pod.yaml"
    save_compact(superpod, path)
    before = path.read_bytes()
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=default_catalog(), settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert window.open_file(path, ask=False)
    assert window.save_file(tmp_path / "again.yaml")
    assert (tmp_path / "again.yaml").read_bytes() == before


@pytest.mark.slow
def test_a_large_file_opens_with_progress_read_on_a_worker(qtbot, tmp_path, superpod,
                                                           monkeypatch):
    from PySide6.QtCore import QSettings

    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui import MainWindow, open_progress

    path = tmp_path / "pod.yaml"
    save_compact(superpod, path)
    monkeypatch.setattr(open_progress, "PROGRESS_ABOVE_BYTES", 1000)  # "large": the test file
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=default_catalog(), settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    assert window.open_file(path, ask=False)
    progress = window.files.open_progress
    assert progress.shown and progress.read_in_worker
    assert progress.stages[0].startswith("reading")
    assert progress.stages[-1] == (f"drawing {superpod.device_count():,} devices and "
                                   f"{superpod.link_count():,} links…")
    assert progress.values == sorted(progress.values) and progress.values[-1] < 100
    assert window.document.layout == superpod
    # a broken large file: the loader's message, the open design kept
    (tmp_path / "bad.yaml").write_text(path.read_text().replace("of: dgx-h100,", "of: x,", 1))
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.critical", lambda *a: None)
    assert not window.open_file(tmp_path / "bad.yaml", ask=False)
    assert "'of' must name a template" in window.last_error
    assert window.document.layout == superpod


def test_a_compact_file_cut_short_is_refused(superpod):
    text = dump_compact_text(superpod)
    lines = text.splitlines(keepends=True)
    assert lines[-1].startswith("# end of layout: ")
    # cut at a line boundary: the end line is gone
    with pytest.raises(LayoutFileError, match="cut short"):
        parse_layout_text("".join(lines[:-40]), "c.yaml")
    # one instance line lost in the middle: the expanded counts no longer match the end line
    first = next(i for i, t in enumerate(lines) if t.startswith("- {id: dgx-3, of:"))
    with pytest.raises(LayoutFileError) as info:
        parse_layout_text("".join(lines[:first] + lines[first + 1:]), "c.yaml")
    assert str(info.value).startswith(f"c.yaml:{len(lines) - 1}: end check failed")


def test_a_compact_read_links_the_devices_own_id_strings(superpod, catalog):
    """Memory: a node's link ends hold its devices' own id strings, not copies per end."""
    back = parse_layout_text(dump_compact_text(superpod), "c.yaml", catalog)
    ids = {d.id: d.id for d in back.devices()}
    inside = [k for k in back.links() if k.id.startswith("dgx-")]  # the nodes' own links
    assert len(inside) > 1000
    assert all(k.a.device is ids[k.a.device] and k.b.device is ids[k.b.device] for k in inside)


@pytest.mark.parametrize(("section", "edit", "message"), [
    ("links:", lambda t: t[:-1] + ", count: 0}", "'count' must be a whole number >= 1, got 0"),
    ("links:", lambda t: t[:-1] + ", a: {b}}", "expected one '- {key: value, ...}' entry on "
     "this line (the compact form keeps each entry on one line)"),
    ("devices:", lambda t: t[:-1] + ", u: 0}", "'u' must be a whole number of rack units"),
    ("devices:", lambda t: "  " + t, "expected 'key: value', a section name (templates, "),
])
def test_the_plain_sections_are_read_a_piece_at_a_time_and_refuse_a_bad_line_at_it(
        superpod, monkeypatch, section, edit, message):
    """The compact form's groups, devices and links are read by the plain form's reader
    (whole pieces of lines at once), in its strict form: a bad line is refused at its line
    in the compact form's words."""
    from rackdesigner.io import fastread

    calls = []
    real = fastread.read_canonical
    monkeypatch.setattr(fastread, "read_canonical",
                        lambda *a, **k: calls.append(sorted(a[8])) or real(*a, **k))
    text = dump_compact_text(superpod)
    assert parse_layout_text(text, "c.yaml") == superpod
    assert calls == [["devices", "links"]]  # the whole-piece readers
    lines = text.split("\n")
    number = lines.index(section) + 12
    lines[number] = edit(lines[number])
    with pytest.raises(LayoutFileError) as info:
        parse_layout_text("\n".join(lines), "c.yaml")
    assert str(info.value).startswith(f"c.yaml:{number + 1}: "), str(info.value)
    assert message in str(info.value)
