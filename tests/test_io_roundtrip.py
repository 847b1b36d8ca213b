"""Layout YAML round trips: save → load gives an equal document and the same bytes again."""

from __future__ import annotations

import dataclasses
import io
import os
import random
import re
from pathlib import Path

import pytest

from rackdesigner import load_layout, save_layout
from rackdesigner.io import dump_layout_text, parse_layout_text
from rackdesigner.model import Device, Group, Layout, Link, Meta, PortRef, instantiate

AWKWARD_TEXT = [
    'quote " double',
    "quote ' single",
    "colon: space",
    "trailing colon:",
    "a:b",
    "#hash",
    "x # comment?",
    "Ünïcødé ✓ 日本語 🚀",
    "line one\nline two\n",
    "tab\tinside",
    "\u2028 line separator \x85 next line",
    "yes",
    "No",
    "ON",
    "null",
    "~",
    "true",
    "123",
    "0x1F",
    "1e5",
    "1_000",
    "12:30:00",
    "2024-01-01",
    ".inf",
    "- dash",
    "[bracket]",
    "{brace}",
    "&anchor",
    "*alias",
    "!tag",
    "%percent",
    "@at",
    "`tick",
    "   leading and trailing spaces   ",
    "...",
    "---",
    "\\backslash",
    "",
]

FLOATS = [0.1 + 0.2, 1e20, -1e20, 1.5e-7, 1e-300, 5e-324, 1.7976931348623157e308, 1e15, 1e16,
          123456789.123456789, 2.5, -7.25, 3.0]


def _layout(catalog, items=(), meta: Meta | None = None) -> Layout:
    layout = Layout(catalog, meta)
    groups = [i for i in items if isinstance(i, Group)]
    devices = [i for i in items if isinstance(i, Device)]
    links = [i for i in items if isinstance(i, Link)]
    layout.add_all(groups, devices, links)
    return layout


def _dgx_h100(catalog) -> Layout:
    parts = instantiate(catalog, "dgx-h100", "dgx-1")
    layout = Layout(catalog, Meta(name="one DGX H100"))
    layout.add_all(parts.groups, parts.devices, parts.links)
    return layout


def _nested_groups(catalog) -> Layout:
    items = [
        Group("pod-1", "Pod 1", "pod"),
        Group("su-1", "SU 1", "su", "pod-1", collapsed=True),
        Group("rack-a", "Rack A", "rack", "su-1"),
        Group("node-1", "", "node", "rack-a", template="dgx-h100"),
        Group("loose"),
        Device("rack-1", "rack-42u", pos=(10.0, -20.0), group="rack-a"),
        Device("gpu-1", "h100-sxm5", "GPU one", (1.5, 2.25), "rack-1", 3, "node-1"),
        Device("gpu-2", "h100-sxm5", pos=(-0.0, 0.0), group="node-1"),
        Device("leaf-1", "qm9700", rack="rack-1", u=40, group="su-1"),
        Device("nic-1", "connectx-7", group="loose"),
        Link("link-1", PortRef("gpu-1", "nvlink", 0), PortRef("gpu-2", "nvlink", 0), 18),
        Link("link-2", PortRef("nic-1", "ib"), PortRef("leaf-1", "ib", 3), 1, "dac-ndr", 2.5),
    ]
    return _layout(catalog, items, Meta("nested", "groups in groups in groups"))


def _awkward_names(catalog) -> Layout:
    items: list = [Group("g-0", AWKWARD_TEXT[0], "node")]
    for k, text in enumerate(AWKWARD_TEXT):
        items.append(Device(f"dev-{k}", text or "unknown-model", text, group="g-0"))
    items.append(Group("g-1", AWKWARD_TEXT[8], "rack", "g-0"))
    meta = Meta("name: with 'quotes' and \"more\"\nand a newline", "yes")
    return _layout(catalog, items, meta)


def _drawable(value: float) -> tuple[float, float]:
    from rackdesigner.model.items import MAX_COORD

    return (value, -value) if abs(value) <= MAX_COORD else (value / 1e200, -value / 1e200)


def _floats(catalog) -> Layout:
    items: list = [Device("a", "h100-sxm5"), Device("b", "h100-sxm5")]
    for k, value in enumerate(FLOATS):  # positions stop at MAX_COORD (the canvas's limit)
        items.append(Device(f"d-{k}", "h100-sxm5", pos=_drawable(value)))
        items.append(Link(f"l-{k}", PortRef("a", "nvlink"), PortRef("b", "nvlink"),
                          length_m=abs(value)))
    items.append(Device("zero", "h100-sxm5", pos=(-0.0, 1e20)))
    return _layout(catalog, items)


def _unresolved(catalog) -> Layout:
    layout = _layout(catalog, [Device("gpu-1", "h100-sxm5")])
    layout.add_unresolved_link(Link("link-9", PortRef("gpu-1", "nvlink"),
                                    PortRef("ghost", "nvlink", 2), 2))
    layout.add_unresolved_link(Link("link-10", PortRef("gone-a", "ib"), PortRef("gone-b", "ib")))
    return layout


def _extensions(catalog) -> Layout:
    # The model compares `extra`/`props` as tuples, so the canonical (loaded) form is sorted.
    meta = Meta("ext", extra=tuple(sorted((
        ("x-tool", {"name": "planner", "version": [1, 2, 3], "nested": {"deep": [{"k": None}]}}),
        ("x-note", "multi\nline: text"),
        ("x-flag", True),
        ("x-ratio", 0.1 + 0.2),
        ("x-empty", {}),
    ))))
    items = [Device("gpu-1", "h100-sxm5",
                    props=(("x-asset", "SN-0001"), ("x-n", 7), ("x-tags", ["a", "b: c"]))),
             Device("gpu-2", "h100-sxm5", props=(("x-meta", {"z": 1, "a": [True, None]}),))]
    return _layout(catalog, items, meta)


BUILDERS = {
    "dgx-h100": _dgx_h100,
    "nested-groups": _nested_groups,
    "awkward-names": _awkward_names,
    "floats": _floats,
    "unresolved-links": _unresolved,
    "extensions": _extensions,
    "empty": lambda catalog: Layout(catalog),
}


@pytest.fixture(params=sorted(BUILDERS))
def layout(request, catalog) -> Layout:
    return BUILDERS[request.param](catalog)


def test_save_load_equal_and_resave_identical(layout, tmp_path):
    path = tmp_path / "design.yaml"
    save_layout(layout, path)
    first = path.read_bytes()
    loaded = load_layout(path)
    assert loaded == layout
    assert set(loaded.unresolved_links) == set(layout.unresolved_links)
    save_layout(loaded, path)
    assert path.read_bytes() == first
    assert load_layout(path) == layout


def test_saving_twice_gives_identical_bytes(layout, tmp_path):
    save_layout(layout, tmp_path / "a.yaml")
    save_layout(layout, tmp_path / "b.yaml")
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()
    assert dump_layout_text(layout) == dump_layout_text(layout)


def test_output_is_utf8_with_unix_newlines_and_one_line_per_item(layout):
    text = dump_layout_text(layout)
    assert text.endswith("\n") and "\r" not in text
    text.encode("utf-8")
    body = text.split("\n")
    entries = [line for line in body if line.startswith("- ")]
    assert len(entries) == (layout.device_count() + layout.link_count()
                            + len(layout.unresolved_links) + len(list(layout.groups())))


def test_awkward_strings_survive_exactly(catalog):
    layout = _awkward_names(catalog)
    loaded = parse_layout_text(dump_layout_text(layout))
    for k, text in enumerate(AWKWARD_TEXT):
        assert loaded.device(f"dev-{k}").name == text
        assert type(loaded.device(f"dev-{k}").name) is str
    assert loaded.meta == layout.meta


def test_floats_read_back_to_the_same_value(catalog):
    layout = _floats(catalog)
    loaded = parse_layout_text(dump_layout_text(layout))
    for k, value in enumerate(FLOATS):
        assert loaded.device(f"d-{k}").pos == _drawable(value)
        assert loaded.link(f"l-{k}").length_m == abs(value)
    assert "0.30000000000000004" in dump_layout_text(layout)
    assert loaded.device("zero").pos == (0.0, 1e20)


def test_defaults_are_omitted(catalog):
    layout = _layout(catalog, [Device("gpu-1", "h100-sxm5"), Device("gpu-2", "h100-sxm5"),
                               Link("l-1", PortRef("gpu-1", "nvlink"), PortRef("gpu-2", "nvlink"))])
    text = dump_layout_text(layout)
    assert "- {id: gpu-1, model: h100-sxm5}\n" in text
    assert "- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink}\n" in text
    for default in ("pos:", "count:", "name:", "collapsed:", "groups:"):
        assert default not in text


def test_extension_keys_are_kept(catalog):
    layout = _extensions(catalog)
    loaded = parse_layout_text(dump_layout_text(layout))
    assert dict(loaded.meta.extra)["x-tool"]["nested"] == {"deep": [{"k": None}]}
    assert dict(loaded.device("gpu-1").props)["x-tags"] == ["a", "b: c"]
    # what a tool wrote by hand comes back, sorted, and re-saves the same
    hand = ("schema_version: 1\nx-zeta: 1\nx-alpha: {b: [1, 2], a: text}\n"
            "devices:\n- {x-serial: ABC, id: d1, model: h100-sxm5}\n")
    text = dump_layout_text(parse_layout_text(hand))
    assert text.index("x-alpha: {a: text, b: [1, 2]}") < text.index("x-zeta: 1")
    assert "- {id: d1, model: h100-sxm5, x-serial: ABC}\n" in text
    assert dump_layout_text(parse_layout_text(text)) == text


def _shuffled_copy(layout: Layout, seed: int) -> Layout:
    """The same document built in another order (parents still before children)."""
    rng = random.Random(seed)
    groups = list(layout.groups())
    devices = list(layout.devices())
    links = list(layout.links())
    rng.shuffle(devices)
    rng.shuffle(links)
    devices = [dataclasses.replace(d, props=tuple(rng.sample(d.props, len(d.props))))
               for d in devices]
    ordered: list[Group] = []
    pending = groups[:]
    rng.shuffle(pending)
    while pending:
        for group in list(pending):
            if group.parent is None or group.parent in {g.id for g in ordered}:
                ordered.append(group)
                pending.remove(group)
    extra = list(layout.meta.extra)
    rng.shuffle(extra)
    other = Layout(layout.catalog, Meta(layout.meta.name, layout.meta.description, tuple(extra)))
    other.add_all(ordered, devices, links)
    unresolved = list(layout.unresolved_links)
    rng.shuffle(unresolved)
    for link in unresolved:
        other.add_unresolved_link(link)
    return other


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_insertion_order_does_not_change_the_bytes(layout, seed):
    other = _shuffled_copy(layout, seed)
    assert sorted(d.id for d in other.devices()) == sorted(d.id for d in layout.devices())
    assert dump_layout_text(other) == dump_layout_text(layout)


def test_ids_that_sort_equal_naturally_are_still_ordered(catalog):
    # natural order treats gpu-01 and gpu-1 alike; the bytes must not depend on insertion order
    ids = ["gpu-1", "gpu-01", "gpu-001", "gpu-10", "gpu-2"]
    forward = _layout(catalog, [Device(i, "h100-sxm5") for i in ids])
    backward = _layout(catalog, [Device(i, "h100-sxm5") for i in reversed(ids)])
    assert dump_layout_text(forward) == dump_layout_text(backward)
    text = dump_layout_text(forward)
    assert text.index("id: gpu-2,") < text.index("id: gpu-10,")


def test_file_objects_and_paths(catalog, tmp_path):
    layout = _nested_groups(catalog)
    text_stream = io.StringIO()
    save_layout(layout, text_stream)
    assert load_layout(io.StringIO(text_stream.getvalue())) == layout
    byte_stream = io.BytesIO()
    save_layout(layout, byte_stream)
    assert byte_stream.getvalue() == text_stream.getvalue().encode("utf-8")
    assert load_layout(io.BytesIO(byte_stream.getvalue())) == layout

    path = tmp_path / "layout.yaml"
    save_layout(layout, str(path))
    assert path.read_text(encoding="utf-8") == text_stream.getvalue()
    assert load_layout(str(path)) == layout
    assert load_layout(path) == layout
    with open(path, encoding="utf-8") as handle:
        assert load_layout(handle) == layout
    with open(path, "rb") as handle:
        assert load_layout(handle) == layout
    with open(tmp_path / "handle.yaml", "w", encoding="utf-8") as handle:
        save_layout(layout, handle)
    with open(tmp_path / "handle-b.yaml", "wb") as handle:
        save_layout(layout, handle)
    assert (tmp_path / "handle.yaml").read_bytes() == path.read_bytes()
    assert (tmp_path / "handle-b.yaml").read_bytes() == path.read_bytes()


def test_relative_path_saves_in_the_current_folder(catalog, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_layout(_nested_groups(catalog), "here.yaml")
    assert load_layout("here.yaml") == _nested_groups(catalog)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here.yaml"]


def test_loaded_layout_remembers_source_lines(catalog, tmp_path):
    path = tmp_path / "l.yaml"
    save_layout(_nested_groups(catalog), path)
    loaded = load_layout(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for object_id, line in loaded.source_lines.items():
        assert re.match(rf"- {{id: {re.escape(object_id)}[,}}]", lines[line - 1])
    assert loaded.revision == 0


# ---- atomic save ------------------------------------------------------------------------

def _previous_file(catalog, tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "design.yaml"
    save_layout(_nested_groups(catalog), path)
    return path, path.read_bytes()


class _Crash(Exception):
    pass


def test_crash_in_replace_leaves_previous_file_and_no_temp(catalog, tmp_path, monkeypatch):
    path, before = _previous_file(catalog, tmp_path)

    def crash(*_args, **_kwargs):
        raise _Crash("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(_Crash):
        save_layout(_dgx_h100(catalog), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["design.yaml"]


def test_crash_mid_write_leaves_previous_file_and_no_temp(catalog, tmp_path, monkeypatch):
    path, before = _previous_file(catalog, tmp_path)
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, bytes(data[: len(data) // 2]))
        raise _Crash("disk full")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(_Crash):
        save_layout(_dgx_h100(catalog), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["design.yaml"]


def test_crash_in_fsync_leaves_previous_file_and_no_temp(catalog, tmp_path, monkeypatch):
    path, before = _previous_file(catalog, tmp_path)

    def crash(_fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError):
        save_layout(_dgx_h100(catalog), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["design.yaml"]


def test_unsaveable_layout_touches_nothing(catalog, tmp_path):
    path, before = _previous_file(catalog, tmp_path)
    # the model refuses a NaN position (issue 24); a state built around it still cannot be saved
    with pytest.raises(ValueError, match="finite"):
        _layout(catalog, [Device("gpu-1", "h100-sxm5", pos=(float("nan"), 0.0))])
    from rackdesigner.model import Layout
    from rackdesigner.model.state import DesignState

    broken = Layout(catalog)
    broken._state = DesignState().with_device(  # around the model's check, as a bug might
        Device("gpu-1", "h100-sxm5", pos=(float("nan"), 0.0)))
    with pytest.raises(ValueError, match="gpu-1"):
        save_layout(broken, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["design.yaml"]


def test_save_keeps_file_permissions(catalog, tmp_path):
    path, _ = _previous_file(catalog, tmp_path)
    path.chmod(0o640)
    save_layout(_dgx_h100(catalog), path)
    assert path.stat().st_mode & 0o777 == 0o640
    assert load_layout(path) == _dgx_h100(catalog)
