"""NetBox: the bulk-import files checked against NetBox 4's import forms, and device types
from the community library's format converted to catalog models (and back)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from rackdesigner.catalog.user import read_user_dir
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import export

DATA = Path(__file__).parent / "data" / "interop"

# Field names of NetBox 4's CSV import forms (netbox/dcim/forms/bulk_import.py and the
# tenancy/extras forms they use); a column outside these is rejected by the import.
FORM_FIELDS = {
    "01-manufacturers.csv": {"name", "slug", "description", "tags"},
    "02-device-roles.csv": {"name", "slug", "color", "vm_role", "config_template",
                            "description", "tags"},
    "04-sites.csv": {"name", "slug", "status", "region", "group", "tenant", "facility",
                     "time_zone", "description", "physical_address", "shipping_address",
                     "latitude", "longitude", "comments", "tags"},
    "05-racks.csv": {"site", "location", "name", "facility_id", "tenant", "status", "role",
                     "rack_type", "form_factor", "serial", "asset_tag", "width", "u_height",
                     "starting_unit", "desc_units", "outer_width", "outer_depth", "outer_unit",
                     "mounting_depth", "weight", "max_weight", "weight_unit", "airflow",
                     "description", "comments", "tags"},
    "06-devices.csv": {"name", "role", "tenant", "manufacturer", "device_type", "platform",
                       "serial", "asset_tag", "status", "site", "location", "rack", "position",
                       "face", "latitude", "longitude", "parent", "device_bay", "airflow",
                       "virtual_chassis", "vc_position", "vc_priority", "cluster",
                       "description", "config_template", "comments", "tags"},
    "07-cables.csv": {"side_a_site", "side_a_device", "side_a_type", "side_a_name",
                      "side_b_site", "side_b_device", "side_b_type", "side_b_name", "type",
                      "status", "tenant", "label", "color", "length", "length_unit",
                      "description", "comments", "tags"},
}
REQUIRED = {"01-manufacturers.csv": {"name", "slug"}, "04-sites.csv": {"name", "slug", "status"},
            "05-racks.csv": {"site", "name", "status", "width", "u_height"},
            "06-devices.csv": {"role", "manufacturer", "device_type", "site", "status"},
            "07-cables.csv": {"side_a_device", "side_a_type", "side_a_name", "side_b_device",
                              "side_b_type", "side_b_name"}}
CABLE_TYPES = {"", "dac-active", "dac-passive", "mmf-om4", "smf", "aoc", "cat6"}


def _read(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    layout = generate("superpod", system="dgx-h100", sus=1)
    folder = tmp_path_factory.mktemp("netbox")
    export(layout, "netbox", folder)
    return layout, folder


def test_csv_columns_are_netbox_import_fields(exported):
    _, folder = exported
    for name, allowed in FORM_FIELDS.items():
        rows = _read(folder, name)
        assert rows, name
        header = set(rows[0])
        assert header <= allowed, (name, header - allowed)
        assert REQUIRED.get(name, set()) <= header, name


def test_objects_reference_each_other_as_netbox_requires(exported):
    layout, folder = exported
    types = {}
    for path in (folder / "03-device-types").glob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        assert {"manufacturer", "model", "slug", "u_height"} <= set(doc)
        types[doc["model"]] = doc
    makers = {r["name"] for r in _read(folder, "01-manufacturers.csv")}
    roles = {r["name"] for r in _read(folder, "02-device-roles.csv")}
    sites = {r["name"] for r in _read(folder, "04-sites.csv")}
    racks = {r["name"]: int(r["u_height"]) for r in _read(folder, "05-racks.csv")}
    devices = _read(folder, "06-devices.csv")
    occupied: dict[str, set[int]] = {}
    for d in devices:
        assert d["device_type"] in types and d["manufacturer"] in makers
        assert d["role"] in roles and d["site"] in sites
        assert d["status"] == "planned"
        if d["rack"]:
            assert d["rack"] in racks and d["face"] == "front"
            height = types[d["device_type"]]["u_height"]
            units = set(range(int(d["position"]), int(d["position"]) + int(height)))
            assert max(units) <= racks[d["rack"]]
            taken = occupied.setdefault(d["rack"], set())
            assert not units & taken, f"{d['name']} overlaps another device"
            taken |= units
    # every GPU system and switch of the design is a NetBox device
    names = {d["name"] for d in devices}
    assert {g.id for g in layout.groups() if g.template == "dgx-h100"} <= names
    assert {d.id for d in layout.devices() if d.model == "qm9700"} <= names
    # every cable end is an interface of its device's type
    interfaces = {d["name"]: {i["name"] for i in types[d["device_type"]].get("interfaces", [])}
                  for d in devices}
    cables = _read(folder, "07-cables.csv")
    assert cables
    for c in cables:
        for side in ("a", "b"):
            assert c[f"side_{side}_type"] == "dcim.interface"
            assert c[f"side_{side}_name"] in interfaces[c[f"side_{side}_device"]]
        assert c["type"] in CABLE_TYPES
        assert c["length_unit"] in ("m", "")
    ends = [(c["side_a_device"], c["side_a_name"]) for c in cables] + [
        (c["side_b_device"], c["side_b_name"]) for c in cables]
    assert len(ends) == len(set(ends)), "an interface takes one cable"


def test_import_netbox_device_type_into_a_user_catalog(tmp_path, capsys):
    into = tmp_path / "catalog"
    source = DATA / "netbox-nvidia-mqm9790-ns2f.yaml"
    assert main(["catalog", "import-netbox", str(source), "--into", str(into)]) == 0
    specs, problems = read_user_dir(into)
    assert problems == [] and len(specs) == 1
    spec = specs[0]
    assert (spec.id, spec.kind, spec.u_height) == ("nvidia-mqm9790-ns2f", "switch", 1)
    ib = spec.port("ib")
    assert (ib.protocol, ib.generation, ib.count, ib.rate_gbps) == ("infiniband", "NDR", 64, 400)
    assert spec.power.max_w == 1440 and spec.weight_kg == 14.5
    assert all(p.protocol != "ethernet" for p in spec.ports)  # mgmt0 is left out
    assert "netbox" in spec.sources


def test_import_asks_for_what_netbox_does_not_say(tmp_path, capsys):
    into = tmp_path / "catalog"
    source = DATA / "netbox-acme-fabricbox-32.yaml"
    assert main(["catalog", "import-netbox", str(source), "--into", str(into)]) == 2
    err = capsys.readouterr().err
    assert str(source) in err and "type 'other'" in err and "--port other=" in err
    assert not into.exists() or not list(into.iterdir())
    assert main(["catalog", "import-netbox", str(source), "--into", str(into),
                 "--port", "other=ethernet:400"]) == 0
    (spec,), _ = read_user_dir(into)
    assert spec.port("eth").count == 32 and spec.port("eth").rate_gbps == 400
    assert spec.sources["answer"].title.startswith("Port protocol and rate given at import")
    assert spec.weight_kg == pytest.approx(22 * 0.45359237, rel=1e-3)
    assert main(["catalog", "import-netbox", str(source), "--into", str(into),
                 "--port", "other=ethernet:400"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_device_type_round_trip_keeps_ports(exported, tmp_path):
    """A switch exported as a NetBox device type and imported back has the same ports."""
    layout, folder = exported
    into = tmp_path / "back"
    assert main(["catalog", "import-netbox", str(folder / "03-device-types" / "qm9700.yaml"),
                 "--into", str(into)]) == 0
    (spec,), _ = read_user_dir(into)
    original = layout.catalog.get("qm9700")
    fabric = [(g.protocol, g.generation.upper(), g.count, g.rate_gbps) for g in original.ports
              if g.protocol in ("infiniband", "ethernet")]
    assert [(g.protocol, g.generation, g.count, g.rate_gbps) for g in spec.ports] == fabric
    assert (spec.manufacturer, spec.model, spec.u_height) == (
        original.manufacturer, original.model, original.u_height)


@pytest.mark.slow
def test_design_round_trip_through_netbox(tmp_path):
    """Exported to NetBox and imported back: the same boxes in the same racks and U, the
    same parts, and the same cables port for port (bundles re-formed)."""
    from rackdesigner.interop.units import cables, inventory
    from rackdesigner.io import load_layout

    layout = generate("superpod", system="dgx-h100", sus=1)
    folder = tmp_path / "nb"
    export(layout, "netbox", folder)
    back = tmp_path / "back.yaml"
    assert main(["import", "netbox", str(folder), "-o", str(back)]) == 0
    again = load_layout(back)

    def boxes(design):
        inv = inventory(design)
        return {u.id: (u.model, inv.racks.get(u.rack, u.rack) if u.rack else None, u.u)
                for u in inv.units.values() if u.model}

    def wiring(design):
        inv = inventory(design)
        return {frozenset(((c.a_device, c.a_port), (c.b_device, c.b_port))): (c.cable, c.length_m)
                for c in cables(inv) if "ufm" not in (c.a_unit, c.b_unit)}

    assert boxes(again) == boxes(layout)
    parts = {d.id: d.model for d in layout.devices() if not d.id.startswith(("ufm", "rack-"))}
    assert {d.id: d.model for d in again.devices() if d.id in parts} == parts
    assert wiring(again) == wiring(layout)
    leaf_to_spine = [k for k in again.links() if k.a.device == "leaf-1"
                     and k.b.device == "spine-1"]
    assert [k.count for k in leaf_to_spine] == [8]  # the 8 cables are one bundle again


def test_netbox_import_locates_bad_rows(exported, tmp_path, capsys):
    import shutil

    _, folder = exported
    copy = tmp_path / "nb"
    shutil.copytree(folder, copy)
    rows = (copy / "07-cables.csv").read_text().splitlines()
    index = next(i for i, row in enumerate(rows) if row.startswith("dgx-1,") and "nic2/" in row)
    rows[index] = rows[index].replace("nic2/ib.0", "nic9/ib.0")
    (copy / "07-cables.csv").write_text("\n".join(rows) + "\n")
    assert main(["import", "netbox", str(copy), "-o", str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"{copy / '07-cables.csv'}:{index + 1}: device 'dgx-1' has no part 'nic9'" in err
    assert not (tmp_path / "x.yaml").exists()


def test_import_netbox_asks_on_a_terminal(tmp_path, monkeypatch, capsys):
    import io
    import sys

    answers = iter(["ethernet", "200"])
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    into = tmp_path / "catalog"
    assert main(["catalog", "import-netbox", str(DATA / "netbox-acme-fabricbox-32.yaml"),
                 "--into", str(into)]) == 0
    assert "does not say its protocol and rate" in capsys.readouterr().err
    (spec,), _ = read_user_dir(into)
    assert spec.port("eth").rate_gbps == 200


def test_rack_scale_system_round_trip_keeps_its_nvlink_domain(tmp_path):
    """An NVL72 goes to NetBox as a 0U rack system holding 27 trays at their U, and comes
    back with all its parts and NVLink wiring."""
    from rackdesigner.io import load_layout

    layout = generate("nvl72")
    folder = tmp_path / "nb"
    export(layout, "netbox", folder)
    devices = {r["name"]: r for r in _read(folder, "06-devices.csv")}
    assert devices["nvl72-1"]["position"] == "" and devices["nvl72-1"]["rack"]
    frame = yaml.safe_load((folder / "03-device-types" / "gb200-nvl72.yaml").read_text())
    assert frame["u_height"] == 0
    assert len([n for n in devices if ".tray" in n or ".switch_tray" in n]) == 27
    back = tmp_path / "back.yaml"
    assert main(["import", "netbox", str(folder), "-o", str(back)]) == 0
    again = load_layout(back)
    parts = {d.id: d.model for d in layout.devices() if d.id.startswith("nvl72-1.")}
    assert {d.id: d.model for d in again.devices() if d.id.startswith("nvl72-1.")} == parts
    trays_u = {d.id: d.u for d in layout.devices() if ".tray" in d.id}
    assert {d.id: d.u for d in again.devices() if ".tray" in d.id} == trays_u
    assert {(str(k.a), str(k.b), k.count) for k in again.links()} == {
        (str(k.a), str(k.b), k.count) for k in layout.links()}


def _community_type(model: str, part: str, itype: str, ports: int) -> str:
    """A device type as the NetBox community library writes one: fabric ports `swpN` of an
    Ethernet `itype` (the library's way for InfiniBand parts too) and a management port."""
    lines = ["manufacturer: Mellanox", f"model: {model}", f"slug: mellanox-{part.lower()}",
             f"part_number: {part}", "u_height: 1", "is_full_depth: true", "interfaces:"]
    lines += [f"  - name: swp{i}\n    type: {itype}" for i in range(1, ports + 1)]
    lines += ["  - name: mgmt0\n    type: 1000base-t\n    mgmt_only: true"]
    return "\n".join(lines) + "\n"


def test_community_infiniband_switches_typed_ethernet_import_as_infiniband(tmp_path, capsys):
    """The community library describes QM8700/QM8790/SB7800 ports with Ethernet types: they
    became Ethernet switches silently and then built "valid" fabrics (issue 26, item 12). An
    InfiniBand part is recognised by its name/part number, taken as InfiniBand with a warning;
    --fabric ethernet keeps them Ethernet; a real Ethernet switch stays Ethernet, unwarned."""
    cases = {"qm8700.yaml": ("Quantum QM8700", "MQM8700-HS2F", "200gbase-x-qsfp56", 40),
             "sb7800.yaml": ("Switch-IB 2 SB7800", "MSB7800-ES2F", "100gbase-x-qsfp28", 36),
             "sn2700.yaml": ("Spectrum SN2700", "MSN2700-CS2F", "100gbase-x-qsfp28", 32)}
    for name, args in cases.items():
        (tmp_path / name).write_text(_community_type(*args))
    into = tmp_path / "catalog"
    assert main(["catalog", "import-netbox", *(str(tmp_path / n) for n in cases),
                 "--into", str(into)]) == 0
    err = capsys.readouterr().err
    specs = {s.id: s for s in read_user_dir(into)[0]}
    fabric = {sid: [(p.protocol, p.generation, p.count) for p in s.ports
                    if p.protocol in ("infiniband", "ethernet")] for sid, s in specs.items()}
    assert fabric == {"mellanox-mqm8700-hs2f": [("infiniband", "HDR", 40)],
                      "mellanox-msb7800-es2f": [("infiniband", "EDR", 36)],
                      "mellanox-msn2700-cs2f": [("ethernet", fabric["mellanox-msn2700-cs2f"][0][1],
                                                 32)]}
    assert "qm8700.yaml" in err and "sb7800.yaml" in err and "taken as InfiniBand" in err
    assert "sn2700.yaml" not in err
    # the user who knows the unit runs Ethernet says so
    again = tmp_path / "again"
    assert main(["catalog", "import-netbox", str(tmp_path / "qm8700.yaml"), "--into",
                 str(again), "--fabric", "ethernet"]) == 0
    (spec,) = read_user_dir(again)[0]
    assert {p.protocol for p in spec.ports} == {"ethernet"}


def test_a_q3400_with_an_unmarked_copper_port_imports_as_an_xdr_switch(tmp_path, capsys):
    """Issue 38 item 14: the community library's Q3400 (144 infiniband-xdr ports and a
    1000base-t eth1 not marked mgmt_only) exited 2, the suggested --port answer was never read,
    and --fabric ethernet turned the XDR ports into 800GbE."""
    lines = ["manufacturer: NVIDIA", "model: Quantum-X800 Q3400-RA", "slug: nvidia-q3400-ra",
             "u_height: 4", "interfaces:"]
    lines += [f"  - name: IB{i}\n    type: infiniband-xdr" for i in range(1, 145)]
    lines += ["  - name: eth0\n    type: 1000base-t\n    mgmt_only: true",
              "  - name: eth1\n    type: 1000base-t"]
    source = tmp_path / "q3400.yaml"
    source.write_text("\n".join(lines) + "\n")
    for n, extra in enumerate(([], ["--fabric", "ethernet"], ["--port", "1000base-t=ethernet:1"])):
        into = tmp_path / f"cat{n}"
        assert main(["catalog", "import-netbox", str(source), "--into", str(into),
                     *extra]) == 0, capsys.readouterr().err
        (spec,) = read_user_dir(into)[0]
        assert spec.kind == "switch"
        assert [(p.protocol, p.generation, p.count) for p in spec.ports] == [
            ("infiniband", "XDR", 144)]


def test_an_answer_wins_over_an_infiniband_name(tmp_path):
    (tmp_path / "qm8700.yaml").write_text(_community_type(
        "Quantum QM8700", "MQM8700-HS2F", "200gbase-x-qsfp56", 40))
    into = tmp_path / "catalog"
    assert main(["catalog", "import-netbox", str(tmp_path / "qm8700.yaml"), "--into", str(into),
                 "--port", "200gbase-x-qsfp56=ethernet:200"]) == 0
    (spec,) = read_user_dir(into)[0]
    assert [(p.protocol, p.rate_gbps) for p in spec.ports] == [("ethernet", 200)]


def test_a_server_with_many_ports_is_not_taken_for_a_switch(tmp_path, capsys):
    """The library's DGX A100 lists more than 24 fabric interfaces: it imported as a switch."""
    lines = ["manufacturer: NVIDIA", "model: DGX A100", "slug: nvidia-dgx-a100", "u_height: 6",
             "interfaces:"]
    lines += [f"  - name: ib{i}\n    type: infiniband-hdr" for i in range(10)]
    lines += [f"  - name: enp{i}\n    type: 100gbase-x-qsfp28" for i in range(20)]
    (tmp_path / "dgx.yaml").write_text("\n".join(lines) + "\n")
    assert main(["catalog", "import-netbox", str(tmp_path / "dgx.yaml"), "--into",
                 str(tmp_path / "c")]) == 2
    assert "names a server (DGX)" in capsys.readouterr().err
    assert main(["catalog", "import-netbox", str(tmp_path / "dgx.yaml"), "--into",
                 str(tmp_path / "c"), "--kind", "chassis"]) == 0


def test_switchx2_fdr_parts_are_known_infiniband():
    from rackdesigner.interop.netbox_import import infiniband_sign

    assert "SX6036" in infiniband_sign({"model": "Mellanox SX6036", "slug": "x"})
    assert infiniband_sign({"model": "Spectrum SN2700", "slug": "x"}) is None
