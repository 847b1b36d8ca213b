"""The fast reader for saved files gives exactly what the general YAML path gives."""

from __future__ import annotations

import pytest

from rackdesigner._resources import example_paths
from rackdesigner.io import LayoutFileError, dump_layout_text, fastread, parse_layout_text
from rackdesigner.model import Device, Group, Layout, Link, PortRef

AWKWARD_NAMES = ["yes", "null", "Node #1", "a: b", "1e5", "007", "x, y", "ünïcode", "-", "True",
                 "[rack]", "tab\there", "trailing:", "0x1F", "1:30", ""]


def _awkward_layout(catalog) -> Layout:
    layout = Layout(catalog)
    layout.set_meta(name="Design: one", description="multi\nline")
    layout.add_group(Group("g-1", "yes", "node"))
    for i, name in enumerate(AWKWARD_NAMES):
        layout.add_device(Device(f"gpu-{i}", "h100-sxm5", name, (i * 0.1, -1e20 / (i + 1)),
                                 group="g-1"))
    layout.add_link(Link("l-1", PortRef("gpu-0", "nvlink"), PortRef("gpu-1", "nvlink", 3), 5,
                         "dac-ndr", 0.30000000000000004))
    return layout


def _general(text: str, label: str = "<text>") -> Layout:
    """CRLF line ends are valid YAML that the fast reader declines: the general path."""
    return parse_layout_text(text.replace("\n", "\r\n"), label)


def _texts(catalog) -> list[str]:
    """The plain-form examples (a compact-form example has its own reader, test_io_compact)."""
    from rackdesigner.io.compact import is_compact

    texts = [t for t in (path.read_text(encoding="utf-8") for path in example_paths())
             if not is_compact(t)]
    texts.append(dump_layout_text(_awkward_layout(catalog)))
    return texts


@pytest.mark.slow
def test_fast_and_general_paths_agree_on_content_and_lines(catalog):
    for text in _texts(catalog):
        fast, general = parse_layout_text(text), _general(text)
        assert fast == general
        assert fast.source_lines == general.source_lines
        assert dump_layout_text(fast) == text


def test_saved_files_take_the_fast_path(catalog):
    from rackdesigner.io.reader import Entry, Seq, parse_line
    from rackdesigner.io.safety import MAX_NODES

    for text in _texts(catalog):
        assert fastread.read_canonical(text, Entry, Seq, parse_line, MAX_NODES) is not None


@pytest.mark.parametrize("line, fragment", [
    ("- {id: gpu-1, model: h100-sxm5, u: yes}", "'u' must be a whole number"),
    ("- {id: gpu-1, model: h100-sxm5, u: 007}", None),
    ("- {id: gpu-1, model: h100-sxm5, model: a100-sxm4}", "appears twice"),
    ("- {id: gpu-1, model: h100-sxm5, pos: [1, 2, 3]}", "'pos' must be [x, y]"),
    ("- {id: gpu-1, model: h100-sxm5, modle: x}", "did you mean 'model'"),
    ("- {id: gpu-1, model: 1.5}", "'model' must name a catalog model"),
])
def test_entry_lines_mean_what_yaml_says(line, fragment):
    text = f"schema_version: 1\ndevices:\n{line}\n"
    if fragment is None:  # YAML 1.1 reads 007 as octal 7: both paths must agree
        assert parse_layout_text(text).device("gpu-1").u == _general(text).device("gpu-1").u == 7
        return
    for parse in (parse_layout_text, _general):
        with pytest.raises(LayoutFileError) as info:
            parse(text)
        assert fragment in str(info.value) and info.value.line == 3


@pytest.mark.parametrize("name_text", ['"SU1, rail: 0 #1"', '"[x] {y}"', '""', '"tab\\there"',
                                       '"ünï ©"', '"a\\"b"'])
def test_quoted_names_read_the_same_on_both_paths(name_text):
    text = (f"schema_version: 1\ndevices:\n- {{id: gpu-1, model: h100-sxm5, name: {name_text}, "
            "pos: [1, 2], u: 3}\n")
    fast, general = parse_layout_text(text), _general(text)
    assert fast == general
    assert fast.device("gpu-1").pos == (1.0, 2.0) and fast.device("gpu-1").u == 3


def test_a_broken_quoted_value_is_refused_on_both_paths():
    text = 'schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5, name: "a"b}\n'
    for parse in (parse_layout_text, _general):
        with pytest.raises(LayoutFileError, match="invalid YAML"):
            parse(text)


def _direct_counts(text: str) -> tuple[int, int]:
    """How many devices and links the fast reader built straight from their lines."""
    from rackdesigner.io.reader import _DIRECT, Entry, Seq, parse_line
    from rackdesigner.io.safety import MAX_NODES

    doc = fastread.read_canonical(text, Entry, Seq, parse_line, MAX_NODES, _DIRECT, 1)
    return (sum(type(d) is Device for d in doc.get("devices", ())),
            sum(type(k) is Link for k in doc.get("links", ())))


@pytest.mark.slow
def test_a_generated_design_is_built_from_its_lines_as_yaml_would_build_it(catalog):
    from rackdesigner.generators import generate

    layout = generate("superpod", system="dgx-h100", sus=1, catalog=catalog)
    layout.update_device(next(iter(layout.devices())).id, status="failed")
    layout.update_link(next(iter(layout.links())).id, status="failed", length_m=2.5)
    text = dump_layout_text(layout)
    devices, links = _direct_counts(text)
    assert devices > 0.9 * layout.device_count() and links == layout.link_count()
    fast, general = parse_layout_text(text), _general(text)
    assert fast == general == layout
    assert fast.source_lines == general.source_lines
    assert dump_layout_text(fast) == text


@pytest.mark.parametrize("line, fragment", [
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, count: 0}", "'count' must be a whole"),
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, count: 2000000}", "'count' must be a whole"),
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, length_m: -1}", "'length_m' must be"),
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, cable: yes}", "'cable' must be an id"),
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, status: broken}", "'status' must be one"),
    ("- {id: gpu-1, a: gpu-1:nvlink, b: gpu-2:nvlink}", "used twice (first on line 3)"),
    ("- {id: l-1, a: gpu-1:nvlink.x, b: gpu-2:nvlink}", "expected 'device:port'"),
    ("- {id: l-1, b: gpu-2:nvlink, a: gpu-1:nvlink, count: 07}", None),
    ("- {id: l-1, a: gpu-1:nvlink, b: gpu-2:nvlink, length_m: 1.5e+3}", None),
])
def test_link_lines_close_to_the_saved_form_mean_what_yaml_says(line, fragment):
    text = ("schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5}\n"
            f"- {{id: gpu-2, model: h100-sxm5}}\nlinks:\n{line}\n")
    if fragment is None:  # both paths read the same link (07 is octal 7 in YAML 1.1)
        fast, general = parse_layout_text(text), _general(text)
        assert fast == general and fast.link("l-1") == general.link("l-1")
        return
    for parse in (parse_layout_text, _general):
        with pytest.raises(LayoutFileError) as info:
            parse(text)
        assert fragment in str(info.value) and info.value.line == 6


def test_a_device_line_with_a_yaml_word_is_refused_at_its_line():
    text = "schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5, rack: on}\n"
    for parse in (parse_layout_text, _general):
        with pytest.raises(LayoutFileError) as info:
            parse(text)
        assert "'rack' must be an id" in str(info.value) and info.value.line == 3


def test_reading_reports_progress_and_can_be_cancelled(catalog):
    from rackdesigner.generators import generate
    from rackdesigner.io import ReadCancelled, reader

    text = dump_layout_text(generate("superpod", system="dgx-h100", sus=1, catalog=catalog))
    seen: list[tuple[str, float]] = []
    reader.parse_text(text, "<t>", None, lambda s, f: seen.append((s, f)))
    stages = [s for s, _ in seen]
    assert stages[0] == "reading" and stages[-1] == "building"
    fractions = [f for s, f in seen if s == "reading"]
    assert fractions == sorted(fractions) and all(0 <= f < 1 for f in fractions)

    def cancel(stage: str, fraction: float) -> None:
        raise ReadCancelled

    with pytest.raises(ReadCancelled):
        reader.parse_text(text, "<t>", None, cancel)


@pytest.mark.parametrize("text", ["", "\n", "a", "a\n", "\n\nb\n", "ab\ncd\n\nef", "x" * 50])
def test_lines_split_a_piece_at_a_time_are_the_lines(text):
    for chunk in (1, 2, 3, 7, 1 << 20):
        assert list(fastread.split_lines(text, chunk)) == text.split("\n")


def test_sections_read_whole_check_ids_as_line_by_line(tmp_path):
    """Ids of sections the fast reader builds whole are checked in bulk: a repeated id (within
    a section, across sections, next to entries it reads key by key) is still reported at its
    line, naming the first."""
    from rackdesigner.generators import generate
    from rackdesigner.io import LayoutFileError, load_layout, save_layout

    path = tmp_path / "d.yaml"
    save_layout(generate("superpod", system="dgx-h100", nodes=16), path)
    lines = path.read_text().splitlines(keepends=True)
    links = [i for i, line in enumerate(lines) if line.startswith("- {id: ") and ", a: " in line]
    devices = [i for i, line in enumerate(lines) if line.startswith("- {id: ")
               and ", model: " in line]
    first_link_id = lines[links[0]].split(",")[0][7:]
    first_device_id = lines[devices[0]].split(",")[0][7:]
    cases = [
        (links[90], lines[links[90]].replace(lines[links[90]].split(",")[0][7:], first_link_id,
                                             1), links[0]),
        (links[95], lines[links[95]].replace(lines[links[95]].split(",")[0][7:],
                                             first_device_id, 1), devices[0]),
        (devices[70], lines[devices[70]].replace(lines[devices[70]].split(",")[0][7:],
                                                 first_device_id, 1).replace(
                                                     "}", ", x-note: \"key by key\"}"),
         devices[0]),
    ]
    for at, line, first in cases:
        broken = list(lines)
        broken[at] = line
        path.write_text("".join(broken))
        with pytest.raises(LayoutFileError) as err:
            load_layout(path)
        assert err.value.line == at + 1 and f"first on line {first + 1}" in str(err.value)


def test_lines_of_a_section_read_whole_are_found(tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.io import load_layout, save_layout

    path = tmp_path / "d.yaml"
    save_layout(generate("superpod", system="dgx-h100", nodes=16), path)
    text = path.read_text().splitlines()
    layout = load_layout(path)
    for item in (*list(layout.links())[::97], *list(layout.devices())[::53]):
        assert text[layout.source_lines[item.id] - 1].startswith(f"- {{id: {item.id},")
    assert "no-such-id" not in layout.source_lines


def test_a_few_lookups_find_lines_without_filing_every_id_and_many_file_them(tmp_path):
    """`validate` names the line of one finding of 102,400 alike: the lookup scans the ids of
    the sections read whole instead of filing them all (0.35-0.65 s at 100k GPUs); a caller
    asking for many lines gets them filed; every answer is the filed dict's."""
    from rackdesigner.generators import generate
    from rackdesigner.io import load_layout, save_layout

    path = tmp_path / "d.yaml"
    save_layout(generate("superpod", system="dgx-h100", nodes=16), path)
    layout, filed = load_layout(path), load_layout(path).source_lines
    expected = dict(filed.items())  # every id filed
    lines = layout.source_lines
    first_link, last_device = next(iter(layout.links())).id, list(layout.devices())[-1].id
    assert lines.get(first_link) == expected[first_link] and lines[first_link] > 0
    assert last_device in lines and lines[last_device] == expected[last_device]
    assert lines._bulk, "a few lookups filed every id"
    for item_id in [*expected][::7]:  # many: filed once the scans have walked enough
        assert lines[item_id] == expected[item_id] and item_id in lines
    assert not lines._bulk and lines == expected
    missing = load_layout(path).source_lines
    assert "no-such-id" not in missing and missing._bulk  # one miss walks the lists
    assert missing.get("no-such-id", -1) == -1 and not missing._bulk  # the next files them
    with pytest.raises(KeyError):
        missing["no-such-id"]
    assert missing[first_link] == expected[first_link]


def _broken(layout: Layout) -> Layout:
    """An asymmetric, partly broken design: a failed device, a failed link, one link removed
    and one to a device the file does not have (kept unresolved)."""
    links = list(layout.links())
    layout.update_device(next(iter(layout.devices())).id, status="failed")
    layout.update_link(links[1].id, status="failed", length_m=2.5)
    layout.remove_link(links[2].id)
    layout.add_unresolved_link(Link("l-lost", PortRef("nowhere", "nvlink"),
                                    PortRef("nowhere-2", "nvlink")))
    return layout


@pytest.mark.slow
@pytest.mark.parametrize("template, options", [
    ("superpod", {"system": "dgx-h100", "nodes": 8}),
    ("superpod", {"system": "dgx-b200", "nodes": 8}),
    ("superpod", {"system": "gb200-nvl72", "racks": 2}),
    ("rail-optimized", {"system": "dgx-h100", "nodes": 4, "switch": "qm9700"}),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 64, "oversubscription": 2}),
    ("broken", {"system": "dgx-h100", "nodes": 4}),
])
def test_generated_designs_load_as_the_model_objects_they_were(catalog, template, options):
    """Every object the fast reader makes (through `items.fast_maker`) is the generated one:
    equal, of the model's own class, hashing alike; the general YAML path agrees."""
    from rackdesigner.generators import generate

    layout = (_broken(generate("superpod", catalog=catalog, **options)) if template == "broken"
              else generate(template, catalog=catalog, **options))
    text = dump_layout_text(layout)
    fast, general = parse_layout_text(text), _general(text)
    assert fast == general == layout and dump_layout_text(fast) == text
    for mine, theirs in ((fast.devices(), general.devices()), (fast.links(), general.links())):
        for a, b in zip(mine, theirs, strict=True):
            assert type(a) is type(b) and a == b and hash(a) == hash(b)
    for link in fast.links():
        assert type(link.a) is PortRef and type(link.b) is PortRef
