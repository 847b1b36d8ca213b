"""The documented format: the example in docs/file-format.md and golden files of each version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rackdesigner.io import CURRENT_VERSION, dump_layout_text, load_layout, parse_layout_text
from rackdesigner.model import Device, Group, Link, PortRef, check_layout

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "file-format.md"
GOLDEN = Path(__file__).parent / "data" / "golden"


def _yaml_blocks() -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)


def test_doc_has_one_complete_example():
    assert len(_yaml_blocks()) == 1


def test_doc_example_loads_without_design_rule_errors(catalog):
    layout = parse_layout_text(_yaml_blocks()[0], "docs/file-format.md", catalog)
    assert check_layout(layout) == []
    kinds = {catalog.get(d.model).kind for d in layout.devices()}
    assert {"gpu", "nvswitch", "nic", "switch", "rack"} <= kinds
    assert len(list(layout.groups())) >= 2
    assert any(link.count > 1 for link in layout.links())
    assert any(link.a.index is not None or link.b.index is not None for link in layout.links())


def test_doc_example_is_what_rackdesigner_writes(catalog):
    text = _yaml_blocks()[0]
    assert dump_layout_text(parse_layout_text(text, "doc", catalog)) == text


def test_doc_documents_every_key():
    from rackdesigner.io.schema import DEVICE_KEYS, GROUP_KEYS, LINK_KEYS, TOP_KEYS

    doc = DOC.read_text(encoding="utf-8")
    for key in {*TOP_KEYS, *DEVICE_KEYS, *GROUP_KEYS, *LINK_KEYS}:
        assert re.search(rf"^\| [^|]*`{key}`[^|]*\|", doc, re.M), key
    assert f"version **{CURRENT_VERSION}**" in doc


def test_golden_v1_canonical(catalog):
    path = GOLDEN / "v1-canonical.yaml"
    layout = load_layout(path, catalog)
    assert layout.meta.name == "Golden v1: every key"
    assert dict(layout.meta.extra) == {"x-tool": {"name": "planner", "version": [1, 2]}}
    assert layout.group("node-1") == Group("node-1", "Node 1", "node", "rack-a", True, "dgx-h100")
    assert layout.group("rack-a").name == 'Rack "A"'
    assert layout.device("gpu-1") == Device("gpu-1", "h100-sxm5", "GPU #1", (0.5, -120.0),
                                            group="node-1")
    assert layout.device("gpu-2").pos == (170.0, 1e20)
    assert layout.device("gpu-2").props == (("x-serial", "0042"),)
    assert layout.device("leaf-1").rack == "rack-1" and layout.device("leaf-1").u == 40
    assert layout.link("link-1") == Link("link-1", PortRef("gpu-1", "nvlink"),
                                         PortRef("gpu-2", "nvlink", 0), 9)
    assert layout.link("link-3").length_m == 0.1 + 0.2
    assert [k.id for k in layout.unresolved_links] == ["link-2"]
    # a file saved before the end check existed: it loads without one, and saving it again
    # changes only its first line and adds the end line
    old = path.read_text(encoding="utf-8")
    assert "end of layout" not in old
    new = dump_layout_text(layout)
    assert new.splitlines()[1:-1] == old.splitlines()[1:]
    assert new.splitlines()[-1] == "# end of layout: 3 groups, 5 devices, 3 links"


def test_golden_v1_end_check(catalog):
    path = GOLDEN / "v1-end-check.yaml"
    layout = load_layout(path, catalog)
    assert layout.meta.name == "Golden v1: every key"
    # a file RackDesigner wrote comes back byte for byte
    assert dump_layout_text(layout) == path.read_text(encoding="utf-8")


def test_golden_v1_hand_edited(catalog):
    layout = load_layout(GOLDEN / "v1-hand-edited.yaml", catalog)
    assert layout.meta.name == "lab"
    assert layout.device("gpu-2").pos == (170.0, 0.0)
    assert layout.link("link-1").count == 18
    assert layout.source_lines == {"rack-a": 5, "gpu-1": 8, "gpu-2": 12, "link-1": 18}
    canonical = dump_layout_text(layout)
    assert "- {id: gpu-1, model: h100-sxm5, group: rack-a}\n" in canonical
    assert dump_layout_text(parse_layout_text(canonical)) == canonical


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("v*.yaml")), ids=lambda p: p.name)
def test_every_golden_file_loads(path, catalog):
    layout = load_layout(path, catalog)
    assert layout.source_path == str(path)
