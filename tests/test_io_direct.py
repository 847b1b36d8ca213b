"""The whole-piece readers (`io/direct.py`: one `findall` per piece of a section) read a file
exactly as the line-by-line reader does: the same objects and entries, at the same lines, the
same progress, the same errors; and what they take whole is what YAML would build."""

from __future__ import annotations

import pytest

from rackdesigner.io import LayoutFileError, direct, fastread, parse_layout_text
from rackdesigner.io.reader import _DIRECT, Entry, Seq, parse_line
from rackdesigner.io.safety import MAX_NODES

#: Lines at and past the edges of the narrow forms, each in its section; every one of them is
#: read (whole, as an entry or through YAML) to the object YAML would build, or refused alike.
EDGE_GROUPS = [
    "- {id: g-1, name: \"Pod 1\", kind: pod}",
    "- {id: g-2, name: \"yes\", kind: su, parent: g-1}",
    "- {id: g-3, name: plain-name, kind: group, parent: g-1, collapsed: false}",
    "- {id: g-4, kind: node, parent: g-2, collapsed: true, template: dgx-h100, status: failed}",
    "- {id: g-5, name: \"tab\there\", parent: g-1}",
    "- {id: g-6, name: \"\", collapsed: True}",
    "- {id: g-7, parent: g-1, name: \"order\"}",
    "- {id: g-8, kind: rack, parent: g-1, x-note: 3}",
]
EDGE_DEVICES = [
    "- {id: d-1, model: h100-sxm5, pos: [1.5, -2], rack: r-1, u: 3, group: g-4}",
    "- {id: d-2, model: h100-sxm5, name: \"GPU: two\", pos: [0.0, 0.0], group: g-4}",
    "- {id: d-3, model: h100-sxm5, name: null, group: g-4}",
    "- {id: d-4, model: h100-sxm5, pos: [007, 1], status: failed}",
    "- {id: d-5, model: h100-sxm5, pos: [1.0e+150, -1.0e+150], rack: r-1, u: 9999}",
    "- {id: d-6, model: h100-sxm5, pos: [99999999999999999999, -99999999999999999999]}",
    "- {id: d-7, model: h100-sxm5, rack: \"Yes\", u: 2}",
    "- {id: d-8, model: h100-sxm5, group: g-4, status: failed}",
    "- {id: r-1, model: rack-42u, name: \"Rack 1\", pos: [3, 4], group: g-3, floor: [4.8, 0]}",
    "- {id: r-2, model: rack-42u, pos: [5, 4], floor: [1.0e+3, 0]}",
    "- {id: r-3, model: rack-42u, pos: [7, 4], floor: [-0.0, 1.5], power_budget_w: 40800}",
    "- {id: r-4, model: rack-42u, pos: [9, 4], face: rear, floor: [2, 2.5]}",
    "- {id: d-9, model: h100-sxm5, u: 1, rack: r-2}",
    "- {id: d-10, model: h100-sxm5, x-tag: blue}",
]
EDGE_LINKS = [
    "- {id: l-1, a: d-1:nvlink, b: d-2:nvlink, count: 18}",
    "- {id: l-2, a: d-1:ib.0, b: d-2:ib.3, cable: dac-ndr, length_m: 2.5}",
    "- {id: l-3, a: d-1:ib.1, b: d-2:ib.4, count: 1000000, length_m: 0}",
    "- {id: l-4, a: d-1:ib.2, b: d-2:ib.5, count: 2, cable: NULL}",
    "- {id: l-5, a: d-1:pcie, b: d-2:pcie, length_m: -0.0, status: failed}",
    "- {id: l-6, a: d-1:ib.007, b: d-2:ib.6, length_m: 015}",
    "- {id: l-7, a: d-3:nvlink, b: missing-device:nvlink}",
    "- {id: l-8, a: d-4:nvlink, b: d-5:nvlink, cable: dac-ndr, count: 2}",
    "- {id: l-9, a: d-6:ib.1, b: d-7:ib.1, x-note: by hand}",
]


def _text(groups: list[str], devices: list[str], links: list[str],
          extra: str = "") -> str:
    parts = ["schema_version: 1", "name: edges", "groups:", *groups, "devices:", *devices,
             extra, "links:", *links]
    return "\n".join(part for part in parts if part) + "\n"


def _filler(kind: str, n: int) -> list[str]:
    """`n` lines in the writer's narrow form, so that every section has pieces read whole."""
    if kind == "groups":
        return ["- {id: top, kind: pod}"] * bool(n) + [
            f"- {{id: f-g{i}, name: \"filler {i}\", kind: node, parent: top}}" for i in range(n)]
    if kind == "devices":
        return [f"- {{id: f-d{i}, model: h100-sxm5, pos: [{i}, 0.5], rack: r-1, u: {i % 40 + 1}, "
                f"group: f-g{i % 7}}}" for i in range(n)]
    return [f"- {{id: f-l{i}, a: f-d{i}:nvlink, b: f-d{(i + 1) % n}:ib.{i % 9}, count: 2, "
            f"cable: dac-ndr, length_m: {i % 5}}}" for i in range(n)]


def _mixed() -> str:
    """Edge lines among filler lines, with comments and blank lines in between."""
    groups = [*_filler("groups", 40), *EDGE_GROUPS, "# a comment", *_filler("groups", 0)]
    devices = [*_filler("devices", 60), *EDGE_DEVICES[:5], "", *EDGE_DEVICES[5:]]
    links = [*_filler("links", 30), *EDGE_LINKS, "#", *_filler("links", 60)[30:]]
    return _text(groups, devices, links)


def _canonical(text: str, bulk: bool) -> object:
    readers = direct.Whole().readers if bulk else None
    return fastread.read_canonical(text, Entry, Seq, parse_line, MAX_NODES, _DIRECT, 1, None,
                                   readers)


def _shape(doc: object) -> list[tuple[str, list[tuple[str, object]], list[int]]]:
    assert isinstance(doc, dict)
    return [(key, [(type(item).__name__, item) for item in value], value.item_lines)
            if isinstance(value, list) else (key, value, [doc.key_lines[key]])
            for key, value in doc.items()]


@pytest.mark.parametrize("piece", [1, 7, 64, 300, 1 << 16])
def test_pieces_read_whole_are_the_lines_read_one_by_one(monkeypatch, piece):
    """Whatever the pieces' size, the document is the per-line reader's: objects, entries
    and lines (a piece ends mid-section, after a section's header, on an odd line)."""
    monkeypatch.setattr(fastread, "_PIECE", piece)
    text = _mixed()
    whole, alone = _canonical(text, True), _canonical(text, False)
    assert _shape(whole) == _shape(alone)
    taken = sum(type(item) is not Entry for value in whole.values() if isinstance(value, list)
                for item in value)
    assert taken > 150  # most lines were made straight into objects


def test_what_is_read_whole_is_what_yaml_builds(catalog):
    """The fast path against the general one (CRLF line ends: YAML reads every line), on every
    edge line: the same design, the same lines; the same refusal where one is refused."""
    text = _mixed()
    fast = parse_layout_text(text, "<t>", catalog)
    general = parse_layout_text(text.replace("\n", "\r\n"), "<t>", catalog)
    assert fast == general
    assert fast.source_lines == general.source_lines
    assert [link.id for link in fast.unresolved_links] == ["l-7"]
    floor = dict(fast.device("r-1").props)["floor"]
    assert floor == (4.8, 0.0) and all(type(v) is float for v in floor)


@pytest.mark.parametrize("line, section", [
    ("- {id: f-d3, model: h100-sxm5}", "devices"),  # a device id used twice
    ("- {id: l-x, a: f-d1:ib.0, b: f-d2:nvlink, count: 0}", "links"),
    ("- {id: d-x, model: h100-sxm5, pos: [1, 2, 3]}", "devices"),
    ("- {id: g-x, kind: nodes}", "groups"),
    ("- {id: l-y, a: f-d1, b: f-d2:nvlink}", "links"),
    ("- {id: f-g2, name: again}", "groups"),
    ("- {id: g-y, name: Yes}", "groups"),
    ("- {id: d-y, model: h100-sxm5, rack: NO, u: 2}", "devices"),
])
def test_a_bad_line_among_lines_read_whole_is_refused_at_its_line(catalog, line, section):
    groups, devices, links = (_filler("groups", 40), _filler("devices", 80),
                              _filler("links", 80))
    target = {"groups": groups, "devices": devices, "links": links}[section]
    target.insert(len(target) // 2 + 3, line)
    text = _text(groups, devices, links)
    number = text.split("\n").index(line) + 1
    errors = []
    for variant in (text, text.replace("\n", "\r\n")):
        with pytest.raises(LayoutFileError) as info:
            parse_layout_text(variant, "<t>", catalog)
        errors.append(str(info.value))
        assert info.value.line == number
    assert errors[0] == errors[1]


def test_progress_is_reported_at_the_same_lines(monkeypatch):
    monkeypatch.setattr(fastread, "_PROGRESS_EVERY", 16)
    monkeypatch.setattr(fastread, "_PIECE", 500)
    text = _mixed()
    seen: dict[bool, list[tuple[str, float]]] = {True: [], False: []}
    for bulk in (True, False):
        fastread.read_canonical(text, Entry, Seq, parse_line, MAX_NODES, _DIRECT, 1,
                                lambda s, f, b=bulk: seen[b].append((s, f)),
                                direct.Whole().readers if bulk else None)
    assert seen[True] == seen[False] and len(seen[True]) > 10


def test_a_file_over_the_entry_limit_is_declined_whole_or_not(monkeypatch):
    text = _mixed()
    entries = sum(line.startswith("- {") for line in text.split("\n"))
    for limit in (entries - 1, 50, 150):
        for bulk in (True, False):
            assert fastread.read_canonical(text, Entry, Seq, parse_line, limit, _DIRECT, 1,
                                           None, direct.Whole().readers if bulk else None) is None
    assert _canonical(text, True) is not None


@pytest.mark.parametrize("text", ["", "\n", "a", "a\n", "\n\nb\n", "ab\ncd\n\nef", "x" * 50])
def test_pieces_are_whole_lines(text):
    for size in (1, 2, 3, 7, 1 << 16):
        pieces = list(fastread._pieces(text, size))
        assert "".join(text[a:b] for a, b in pieces) == text
        assert all(text[a:b].endswith("\n") for a, b in pieces[:-1])
        assert "\n" not in text[slice(*pieces[-1])]


def test_rows_are_one_per_line_whatever_the_line():
    odd = ["", "#", "- {", "- {id: a, model: b, name: \"x\\", "\r", "- {id: a, model: b}\r",
           "ünï", "- {id: l, a: d:p, b: e:q}", "\x85\u2028", "- {id: a, model: b, name: \""]
    text = "\n".join(odd) + "\n"
    for rows in (direct.group_rows, direct.device_rows, direct.link_rows):
        assert len(rows(text, 0, len(text))) == len(odd)


def test_link_ends_are_looked_up_unless_every_link_joins_devices_read_whole(catalog):
    groups, devices, links = _filler("groups", 7), _filler("devices", 80), _filler("links", 80)
    stray = [*links[:40], links[40].replace("f-d41:", "elsewhere:"), *links[41:]]
    late = "\n".join(["schema_version: 1", "groups:", *groups, "links:", *links, "devices:",
                      *devices]) + "\n"
    for text, resolved in ((_text(groups, devices, links), True),
                           (_text(groups, devices, stray), False), (late, False)):
        whole = direct.Whole()
        fastread.read_canonical(text, Entry, Seq, parse_line, MAX_NODES, _DIRECT, 1, None,
                                whole.readers)
        assert whole.ends_resolved(80) is resolved and not whole.ends_resolved(81)
        layout = parse_layout_text(text, "<t>", catalog)
        assert layout == parse_layout_text(text.replace("\n", "\r\n"), "<t>", catalog)
        assert len(layout.unresolved_links) == (0 if text != _text(groups, devices, stray)
                                                  else 1)


def test_a_read_design_holds_one_string_per_name(catalog):
    """Memory: each link end holds its device's own id string and each model id, port-group
    name and cable is one object, not a copy per line (a 16k design: 23 MB less)."""
    text = _text(_filler("groups", 7), _filler("devices", 80), _filler("links", 80))
    layout = parse_layout_text(text, "<t>", catalog)
    ids = {d.id: d.id for d in layout.devices()}
    links = list(layout.links())
    assert len(links) == 80
    assert all(k.a.device is ids[k.a.device] and k.b.device is ids[k.b.device] for k in links)
    for names in ([d.model for d in layout.devices()], [k.cable for k in links],
                  [end.group for k in links for end in (k.a, k.b)]):
        assert len(set(map(id, names))) == len(set(names))
