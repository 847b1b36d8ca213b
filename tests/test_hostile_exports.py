"""Exports under hostile names (issue 24): what a spreadsheet, a Slurm controller or a simulator
reads from RackDesigner never executes a user's text, and a folder export is whole or absent.

A design name, a rack name and a device name are free text; the attacks are OWASP's formula
starters (`=cmd|' /C calc'!A0`, `@SUM`, `+1`, `-1`, a tab, a CR) and newlines that would open a
live line in a config (`\\nSwitchName=evil Nodes=ALL`). Each export is read back by the parser
its consumer uses (csv, openpyxl, PyYAML, the Slurm topology.conf reader of interop_helpers).
The checks every format gets (formula cells, injected lines and keys, markup, path separators)
run over the exporter registry in `test_hostile_exports_registry.py`; this file keeps the
format-specific ones (names kept as text, round trips, whole-or-absent folders).
"""

from __future__ import annotations

import os
import shutil

import pytest
import yaml
from hostile import EXPORT_NAMES
from interop_helpers import parse_topology_conf

from rackdesigner.generators import generate
from rackdesigner.interop import ExportError, export
from rackdesigner.interop.folders import MANIFEST
from rackdesigner.interop.sanitize import FORMULA_START, cell, one_line, xml_text

NAMES = list(EXPORT_NAMES)


def _hostile(name: str):
    """A small fabric whose design, racks and devices carry `name` (ids cannot hold it)."""
    layout = generate("superpod", system="dgx-h100", sus=1)
    layout.set_meta(name=name)
    for device in list(layout.devices()):
        spec = layout.spec(device.id)
        if spec is not None and spec.kind in ("rack", "switch"):
            layout.update_device(device.id, name=f"{name} {device.id}")
    return layout


@pytest.fixture(scope="module", params=range(len(NAMES)), ids=lambda i: repr(NAMES[i])[:24])
def hostile(request):
    return NAMES[request.param], _hostile(NAMES[request.param])


def _no_live_formula(value: object) -> None:
    assert not (isinstance(value, str) and value.startswith(FORMULA_START)), repr(value)


@pytest.mark.slow
def test_cabling_xlsx_has_no_formula_cells(hostile, tmp_path):
    from openpyxl import load_workbook

    name, layout = hostile
    out = tmp_path / "cables.xlsx"
    export(layout, "cabling", out)
    book = load_workbook(out)
    seen_name = False
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for c in row:
                assert c.data_type != "f", (sheet.title, c.coordinate, c.value)
                if isinstance(c.value, str) and c.value.startswith(FORMULA_START):
                    assert c.quotePrefix, (sheet.title, c.coordinate, c.value)
                seen_name |= isinstance(c.value, str) and c.value.replace(  # XML keeps no CR
                    "\r", "\n") == xml_text(name).replace("\r", "\n")
    assert seen_name  # the name is kept as text, not mangled (the Summary sheet's design)


def test_netbox_round_trip_keeps_formula_like_names(tmp_path):
    """The `'` guard is taken off again on import: a rack named `=1+1` comes back as itself."""
    from rackdesigner.interop.netbox_design import read_folder

    layout = _hostile("=1+1")
    out = tmp_path / "nb"
    export(layout, "netbox", out)
    again = read_folder(out).layout
    racks = sorted(d.name for d in again.devices() if d.name.startswith("=1+1"))
    assert racks and all(not r.startswith("'") for r in racks)


@pytest.mark.parametrize("fmt,suffix", [("slurm-tree", ".conf"), ("slurm-block", ".conf"),
                                        ("slurm-tree", ".yaml")])
def test_slurm_topology_has_no_injected_line(hostile, fmt, suffix, tmp_path):
    _, layout = hostile
    if fmt == "slurm-block":
        layout = generate("nvl72")
        layout.set_meta(name=hostile[0])
    out = tmp_path / f"topology{suffix}"
    export(layout, fmt, out)
    text = out.read_text()
    for line in text.splitlines():
        assert "\r" not in line and "\x85" not in line and "\u2028" not in line
    if suffix == ".conf":
        assert "evil" not in "".join(x for x in text.splitlines() if not x.startswith("#"))
        names = {e.get("switchname") or e.get("blockname") for e in parse_topology_conf(text)}
        assert "evil" not in names
    else:  # the name becomes a slug in a YAML string; no switch of another name appears
        doc = yaml.safe_load(text)
        switches = {s["switch"] for s in doc[0]["tree"]["switches"]}
        assert not any("evil" in s for s in switches)


def test_astra_sim_network_has_no_injected_line(hostile, tmp_path):
    _, layout = hostile
    out = tmp_path / "astra"
    export(layout, "astra-sim", out)
    network = (out / "network.yml").read_text()
    for line in network.splitlines():
        assert line.startswith("#") or "evil" not in line
        assert not line.startswith(("SwitchName", "BlockName"))
    data = yaml.safe_load(network)
    assert set(data) >= {"topology", "npus_count", "bandwidth", "latency"}
    readme = (out / "README.txt").read_text()
    assert "\nSwitchName=evil" not in readme


@pytest.mark.slow
def test_graphml_round_trips_hostile_names(hostile, tmp_path):
    from rackdesigner.interop.graphml import read

    name, layout = hostile
    out = tmp_path / "d.graphml"
    export(layout, "graphml", out)
    again = read(out)
    assert again.meta.name == one_line(xml_text(name))


def test_sanitize_cell_and_one_line():
    assert cell("=1+1") == "'=1+1" and cell("ok") == "ok" and cell(-4) == -4
    assert cell("x\r=1+1") == "x\n=1+1" and cell("\r=1") == "'\n=1"
    assert cell("a\x00b") == "a\ufffdb"
    assert one_line("a\nb\r\nc\u2028d\x85e\x00f") == "a b c d e f"


# ---- folder exports: whole or not at all ---------------------------------------------------
@pytest.fixture(scope="module")
def pod():
    return generate("superpod", system="dgx-h100", sus=1)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["netbox", "astra-sim"])
def test_failed_folder_export_leaves_the_old_folder_intact(pod, fmt, tmp_path, monkeypatch):
    out = tmp_path / "export"
    export(pod, fmt, out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert MANIFEST in {str(p) for p in before}
    from rackdesigner.interop import base

    real = base.write_atomic
    calls = {"n": 0}

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] == 3:  # the disk fills in the middle of the export
            raise OSError(28, "No space left on device", str(path))
        return real(path, data)

    module = __import__(f"rackdesigner.interop.{'netbox' if fmt == 'netbox' else 'astrasim'}",
                        fromlist=["write_atomic"])
    monkeypatch.setattr(module, "write_atomic", failing)
    changed = generate("superpod", system="dgx-h100", sus=1)
    changed.set_meta(name="another design")
    with pytest.raises(OSError, match="No space"):
        export(changed, fmt, out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "export"]
    assert leftovers == []


def test_folder_export_replaces_the_whole_old_export(pod, tmp_path):
    out = tmp_path / "nb"
    export(pod, "netbox", out)
    stale = out / "03-device-types" / "stale-model.yaml"
    stale.write_text("model: old\nslug: old\n")
    export(pod, "netbox", out)
    assert not stale.exists()


def test_folder_export_refuses_a_folder_of_other_files(pod, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("precious")
    with pytest.raises(ExportError, match="holds other files"):
        export(pod, "netbox", home)
    assert (home / "thesis.tex").read_text() == "precious"
    assert sorted(p.name for p in home.iterdir()) == ["thesis.tex"]


def test_netbox_import_refuses_a_folder_missing_part_of_its_export(pod, tmp_path):
    from rackdesigner.interop.netbox_design import NetboxImportError, read_folder

    out = tmp_path / "nb"
    export(pod, "netbox", out)
    os.remove(out / "07-cables.csv")
    with pytest.raises(NetboxImportError, match=r"07-cables\.csv"):
        read_folder(out)
    shutil.rmtree(out)


def test_nvl72_power_is_spread_over_its_power_shelves(tmp_path):
    """120 kW on one C20 is no plan (issue 26, item 12): the NVL72's NetBox device type has
    the rack's 8 power shelves, each with its share of the draw."""
    layout = generate("nvl72")
    out = tmp_path / "nb"
    export(layout, "netbox", out)
    doc = yaml.safe_load((out / "03-device-types" / "gb200-nvl72.yaml").read_text())
    ports = doc["power-ports"]
    assert len(ports) == 8
    assert all(p["maximum_draw"] <= 33000 for p in ports)
    assert sum(p["maximum_draw"] for p in ports) == pytest.approx(120000, abs=8)


def test_dgx_h100_and_qm9700_get_their_real_power_supplies(tmp_path):
    """Issue 38 item 16: one C20 carrying a DGX H100's whole 10 kW (or a switch's draw) is no
    plan. The DGX H100 has six 3.3 kW supplies on 16 A (C20) inlets, the QM9700 two (1+1); the
    draw is spread over them, and NetBox's import sums them back to the device's draw."""
    from rackdesigner.interop.netbox_types import POWER_INLETS, device_type_yaml

    layout = generate("superpod", system="dgx-h100", sus=1)
    out = tmp_path / "nb"
    export(layout, "netbox", out)
    for slug, count, kind, rated in (("dgx-h100", 6, "iec-60320-c20", 3300),
                                     ("qm9700", 2, None, None)):
        ports = yaml.safe_load((out / "03-device-types" / f"{slug}.yaml").read_text())[
            "power-ports"]
        assert len(ports) == count and len({p["name"] for p in ports}) == count
        assert all(p.get("type") == kind for p in ports)
        if rated is not None:
            assert all(p["maximum_draw"] <= rated for p in ports)
        assert POWER_INLETS[slug].source  # each with its cited source
        # the ports add up to the draw given (NetBox's import sums them back)
        doc = device_type_yaml(layout.catalog.get(slug), [], 1, 10_200.0)
        assert sum(p["maximum_draw"] for p in doc["power-ports"]) == pytest.approx(10_200,
                                                                                   abs=count)

def test_control_characters_keep_every_export_readable(tmp_path):
    """A name holding a NUL, a bell or an escape sequence: XML 1.0 forbids them (GraphML and
    XLSX were unreadable), NetBox's CSV reader takes a NUL for binary; they become U+FFFD."""
    import networkx as nx
    from openpyxl import load_workbook

    from rackdesigner.interop.netbox_design import read_folder

    layout = _hostile("bell\x07nul\x00esc\x1b[31m")
    export(layout, "graphml", tmp_path / "d.graphml")
    assert nx.read_graphml(tmp_path / "d.graphml").graph["name"].startswith("bell\ufffd")
    export(layout, "cabling", tmp_path / "c.xlsx")
    load_workbook(tmp_path / "c.xlsx")
    export(layout, "netbox", tmp_path / "nb")
    assert read_folder(tmp_path / "nb").devices
