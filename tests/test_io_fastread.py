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
    texts = [path.read_text(encoding="utf-8") for path in example_paths()]
    texts.append(dump_layout_text(_awkward_layout(catalog)))
    return texts


def test_fast_and_general_paths_agree_on_content_and_lines(catalog):
    for text in _texts(catalog):
        fast, general = parse_layout_text(text), _general(text)
        assert fast == general
        assert fast.source_lines == general.source_lines
        assert dump_layout_text(fast) == text


def test_saved_files_take_the_fast_path(catalog):
    from rackdesigner.io.reader import _Entry, _parse_line, _Seq
    from rackdesigner.io.safety import MAX_NODES

    for text in _texts(catalog):
        assert fastread.read_canonical(text, _Entry, _Seq, _parse_line, MAX_NODES) is not None


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
