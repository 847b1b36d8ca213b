"""Every exporter under hostile names, taken from the exporter registry (issue 34): a new export
format gets these tests by being registered, and fails them until each file kind it writes has a
checker here.

One design carries every hostile text at once: its name, each device's name and each group's
name cycle through formula starters (`=`, `+`, `-`, `@`, a tab, a CR), quotes, newlines that
would open a line of their own (a config line, a YAML key, a list item), markup, path
separators and control characters (NUL, bell, escape). Each file written is read back by the
parser its consumer uses, and checked for what that consumer would be fooled by.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hostile import EXPORT_NAMES
from interop_helpers import parse_dot, parse_topology_conf

from rackdesigner.generators import generate
from rackdesigner.interop import EXPORTERS, ExportError, export
from rackdesigner.interop.dot import LEVELS
from rackdesigner.interop.sanitize import FORMULA_START

NAMES = (
    *EXPORT_NAMES,
    "q\"uo'te\" \\\"",
    "\"; SwitchName=evil #",
    "rack\r\nBlockName=evil Nodes=ALL",
    "x\nevil_key: injected",
    "x\n- evil_item",
    "</data><evil_tag/><![CDATA[",
    "../../../etc/passwd",
    "a/b\\c:d",
)
#: What an injected line or key would carry (none of the NAMES' harmless parts do).
INJECTED = ("SwitchName=evil", "BlockName=evil", "evil_key", "evil_item", "evil_tag")


def _hostile_design():
    layout = generate("superpod", system="dgx-h100", sus=1)
    layout.set_meta(name=NAMES[0])
    for i, device in enumerate(list(layout.devices())):
        layout.update_device(device.id, name=f"{NAMES[i % len(NAMES)]} {device.id}")
    for i, group in enumerate(list(layout.groups())):
        layout.update_group(group.id, name=NAMES[(i + 3) % len(NAMES)])
    return layout


@pytest.fixture(scope="module")
def design():
    return _hostile_design()


# ---- what each consumer would be fooled by -------------------------------------------------
def _no_formula(value: object, where: str) -> None:
    assert not (isinstance(value, str) and value.startswith(FORMULA_START)), (where, value)


def _check_csv(path: Path) -> None:
    for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")):
        for value in row:
            _no_formula(value, path.name)
            assert "\x00" not in value, (path.name, value)  # NetBox takes a NUL for binary


def _check_xlsx(path: Path) -> None:
    from openpyxl import load_workbook

    for sheet in load_workbook(path).worksheets:
        for row in sheet.iter_rows():
            for c in row:
                assert c.data_type != "f", (path.name, sheet.title, c.coordinate, c.value)
                if isinstance(c.value, str) and c.value.startswith(FORMULA_START):
                    assert c.quotePrefix, (path.name, sheet.title, c.coordinate, c.value)


def _keys(value: object) -> list[str]:
    """Every mapping key in parsed YAML or JSON."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out += [str(k) for k in item]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return out


def _check_yaml(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert not [k for k in _keys(data) if any(w in k for w in INJECTED)], path.name
    _check_lines(path)


def _check_json(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert not [k for k in _keys(data) if any(w in k for w in INJECTED)], path.name


def _check_xml(path: Path) -> None:
    root = ET.parse(path).getroot()  # XML 1.0 clean: no control characters, markup escaped
    assert not [e for e in root.iter() if "evil" in e.tag], path.name


def _check_lines(path: Path) -> None:
    """A line-oriented file: no line break a reader would split on inside a value, and no
    line that starts with what a name tried to inject (comments aside)."""
    text = path.read_text(encoding="utf-8")
    for bad in ("\r", "\x85", "\u2028", "\u2029", "\x00"):
        assert bad not in text, (path.name, repr(bad))
    for line in text.split("\n"):
        body = line.strip().lstrip("-").strip()
        assert line.lstrip().startswith("#") or not body.startswith(INJECTED), (path.name, line)


def _check_conf(path: Path) -> None:
    _check_lines(path)
    text = path.read_text(encoding="utf-8")
    names = {e.get("switchname") or e.get("blockname") for e in parse_topology_conf(text)}
    assert not [n for n in names if n and "evil" in n], names


def _check_dot(path: Path) -> None:
    _check_lines(path)
    kind, nodes, _ = parse_dot(path.read_text(encoding="utf-8"))
    assert kind == "graph" and nodes  # every label ended where it should


CHECKERS: dict[str, Callable[[Path], None]] = {
    ".csv": _check_csv, ".xlsx": _check_xlsx, ".yaml": _check_yaml, ".yml": _check_yaml,
    ".json": _check_json, ".graphml": _check_xml, ".conf": _check_conf, ".dot": _check_dot,
    ".gv": _check_dot, ".txt": _check_lines,
}
TARGETS = [(name, suffix) for name, e in EXPORTERS.items() for suffix in e.suffixes]
#: the options that make an exporter draw something else: each is run too
VARIANTS: dict[str, list[dict]] = {"dot": [{"level": level} for level in LEVELS[1:]]}
RUNS = [(name, suffix, {}) for name, suffix in TARGETS] + [
    (name, suffix, options) for name, suffix in TARGETS for options in VARIANTS.get(name, ())]


@pytest.mark.parametrize("fmt,suffix,options", RUNS, ids=[
    f"{n}{s or '/'}" + "".join(f"-{v}" for v in o.values()) for n, s, o in RUNS])
def test_every_export_survives_hostile_names(design, fmt, suffix, options, tmp_path):
    out = tmp_path / "out" / f"export{suffix}"
    out.parent.mkdir()
    try:
        export(design, fmt, out, **options)
    except ExportError:  # a refusal is allowed; a traceback or a half-written file is not
        assert not out.exists() or (out.is_dir() and not any(out.iterdir()))
        return
    files = [out] if out.is_file() else sorted(p for p in out.rglob("*") if p.is_file())
    assert files
    for path in files:
        assert path.resolve().is_relative_to(out.parent.resolve()), path  # no ../ escape
        checker = CHECKERS.get(path.suffix.lower())
        if checker is None and path.suffix == "" and path.parent != out.parent:
            checker = _check_lines  # a folder's plain manifest
        assert checker is not None, (f"{fmt} writes {path.name}: add a checker for its kind "
                                     "to CHECKERS")
        checker(path)
    assert not list(tmp_path.rglob("passwd")) and not (tmp_path / "etc").exists()


def test_every_registered_format_is_covered():
    """A format whose output kind has no checker fails here, not silently in the field."""
    for name, exporter in EXPORTERS.items():
        for suffix in exporter.suffixes:
            assert suffix == "" or suffix in CHECKERS, (name, suffix)
    assert {n for n, _ in TARGETS} == set(EXPORTERS)


def test_the_checks_can_fail(tmp_path):
    """Each checker refuses the file a careless writer would produce."""
    bad = {
        ".csv": "name\n=1+1\n",
        ".yaml": "name: x\nevil_key: injected\n",
        ".json": '{"evil_key": 1}',
        ".graphml": "<graphml><evil_tag/></graphml>",
        ".conf": "SwitchName=s1 Switches=x\nSwitchName=evil Nodes=ALL\n",
        ".dot": 'graph g {\n  a [label="x"];\n}\nSwitchName=evil\n',
        ".txt": "design: x\rSwitchName=evil\n",
    }
    for suffix, text in bad.items():
        path = tmp_path / f"bad{suffix}"
        path.write_text(text, encoding="utf-8", newline="")
        with pytest.raises(AssertionError):
            CHECKERS[suffix](path)
