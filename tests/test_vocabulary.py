"""The vocabulary registries (rackdesigner/vocabulary/) against the catalog and their readers.

A catalog kind without an entry, an entry nothing uses, or a module that spells a vocabulary
again instead of reading the registry fails here. The four kinds added through the registry
alone (cdu, pdu, storage, mgmt_switch) are checked end to end on the Qt-free side: BOM, rack
power, rack units and rules; tests/test_ui_new_kinds.py drives the Palette and Racks view.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.bom import bill_of_materials
from rackdesigner.model import Device, Layout, check_layout
from rackdesigner.model.racks import RackIndex

PACKAGE = Path(rackdesigner.__file__).resolve().parent
NEW_KINDS = {"mgmt_switch": "sn2201", "storage": "ai400x2", "pdu": "ap8886",
             "cdu": "supermicro-inrack-cdu"}


def test_every_catalog_kind_has_an_entry_and_every_entry_is_used(catalog):
    kinds = {spec.kind for spec in catalog}
    assert kinds <= set(vocabulary.KINDS), kinds - set(vocabulary.KINDS)
    assert set(vocabulary.KINDS) <= kinds, f"kinds without a catalog model: " \
        f"{set(vocabulary.KINDS) - kinds}"
    protocols = {g.protocol for spec in catalog for g in spec.ports}
    assert protocols == set(vocabulary.PROTOCOLS)
    assert {k.role for k in vocabulary.KINDS.values()} == set(vocabulary.ROLES)
    assert {p.family for p in vocabulary.PROTOCOLS.values()} == set(vocabulary.FAMILIES)
    sections = {vocabulary.palette_section(s.kind, (g.protocol for g in s.ports))
                for s in catalog} - {None}
    assert sections == set(vocabulary.PALETTE_SECTIONS)
    assert {k.power for k in vocabulary.KINDS.values()} <= set(vocabulary.POWER_CATEGORIES)
    for t in vocabulary.TRANSPORTS.values():
        assert vocabulary.PROTOCOLS[t.protocol].family == "network"


def test_the_registries_are_immutable():
    with pytest.raises(TypeError):
        vocabulary.KINDS["x"] = vocabulary.KINDS["gpu"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        vocabulary.KINDS["gpu"].color = "#000000"  # type: ignore[misc]
    with pytest.raises(TypeError):
        vocabulary.COLLECTIVES["x"] = vocabulary.COLLECTIVES["all_reduce"]  # type: ignore[index]


def test_families_and_roles_answer_what_the_layers_used_to_spell_out():
    assert vocabulary.protocols_of("network") == ("infiniband", "ethernet")
    assert vocabulary.protocols_of("host") == ("c2c", "pcie")
    assert vocabulary.kinds_with_role("nic") == ("nic", "dpu")
    assert vocabulary.palette_section("switch", ["ethernet", "nvlink"]) == "NVLink switching"
    assert vocabulary.palette_section("switch", ["infiniband"]) == "InfiniBand"
    assert vocabulary.palette_section("mgmt_switch", ["ethernet"]) == "Management"
    assert vocabulary.palette_section("cable") is None
    with pytest.raises(KeyError, match="expected one of"):
        vocabulary.kind("cdu2")
    with pytest.raises(KeyError, match="unknown role"):
        vocabulary.kinds_with_role("fabric")
    assert sorted(vocabulary.COOLING_KINDS) == ["cdu"]  # serve racks' liquid heat
    assert "send_recv" not in vocabulary.GROUP_COLLECTIVES
    assert vocabulary.COLLECTIVE_NAMES[-1] == "send_recv"


#: vocabularies that used to be spelled in several modules; only the registry may spell them
_SPELLED = [
    re.compile(r"""\(\s*["']infiniband["'],\s*["']ethernet["']\s*\)"""),
    re.compile(r"""\(\s*["']nic["'],\s*["']dpu["']\s*\)"""),
    re.compile(r"""\(\s*["']pcie["'],\s*["']c2c["']\s*\)"""),
    re.compile(r"""["']reduce_scatter["'],\s*["']broadcast["'],\s*["']reduce["']"""),
    re.compile(r"""["']contiguous["'],\s*["']scattered["'],\s*["']random["']"""),
    re.compile(r"""["']auto["'],\s*["']ring["'],\s*["']tree["']"""),
    re.compile(r"""QColor\(\s*["']#76b900["']\s*\)"""),  # the GPU colour as a QColor literal
]


def test_no_module_spells_a_vocabulary_the_registry_holds():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "vocabulary" in path.relative_to(PACKAGE).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for pattern in _SPELLED:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                offenders.append(f"{path.relative_to(PACKAGE)}:{line}: {match.group(0)}")
    assert not offenders, "read these from rackdesigner.vocabulary:\n" + "\n".join(offenders)


@pytest.mark.parametrize("kind_name", sorted(NEW_KINDS))
def test_a_kind_added_by_registry_entry_and_data_alone_reaches_bom_power_racks_and_rules(
        catalog, kind_name):
    model = NEW_KINDS[kind_name]
    spec = catalog.get(model)
    assert spec.kind == kind_name
    entry = vocabulary.KINDS[kind_name]
    for fact in entry.facts:
        assert not fact.required or spec.fact(fact.name) is not None, fact.name
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    layout.add_device(Device("x-1", model, rack="rack-1", u=10))
    # BOM: listed under its kind
    items = {i.model: i for i in bill_of_materials(layout).items}
    assert items[model].kind == kind_name and items[model].count == 1
    index = RackIndex(layout)
    summary = index.summaries()["rack-1"]
    if spec.u_height:
        # Racks view: a unit of its own, coloured by its kind
        assert index.units["x-1"].role == kind_name
        assert index.units["x-1"].rack == "rack-1"
        # rules: a second one on the same U collides
        layout.add_device(Device("x-2", model, rack="rack-1", u=10))
        assert "rack-overlap" in {f.code for f in check_layout(layout)}
    else:
        assert "x-1" not in index.units  # zero-U: on the rack's side rails, no slot
        assert vocabulary.KINDS[kind_name].side_mount
        side = index.side_mounted("rack-1")
        assert [(d.id, d.side, d.lane) for d in side] == [("x-1", "right", 0)]
        assert side[0].figures == " · ".join(vocabulary.fact_figures(kind_name, spec.fact))
    # power: its published draw is in the rack's sum (none published: nothing added)
    assert summary.typical_w == pytest.approx(spec.power.typical_or_max_w)


def test_a_kind_facts_block_is_validated_with_file_and_key(tmp_path):
    from rackdesigner.catalog.loader import read_spec_file

    path = tmp_path / "my-cdu.yaml"
    path.write_text("schema: rackdesigner.device/1\nid: my-cdu\nkind: cdu\nmanufacturer: A\n"
                    "model: B\ncdu: {cooling_kw: lots, source: s}\nsources: {s: {title: t}}\n")
    spec, problems = read_spec_file(path)
    assert spec is None
    assert [str(p) for p in problems] == [
        "my-cdu.yaml: cdu.cooling_kw: expected a number, got 'lots'"]
    path.write_text("schema: rackdesigner.device/1\nid: my-cdu\nkind: cdu\nmanufacturer: A\n"
                    "model: B\nsources: {s: {title: t}}\n")
    spec, problems = read_spec_file(path)
    assert [str(p) for p in problems] == [
        "my-cdu.yaml: cdu: missing (required for kind 'cdu')"]


def test_a_count_takes_its_noun_in_the_right_number():
    from rackdesigner.vocabulary.wording import counted

    assert counted(1, "link") == "1 link"
    assert counted(0, "link") == "0 links"
    assert counted(1024, "device") == "1,024 devices"
    assert counted(1024, "device", grouped=False) == "1024 devices"
    assert counted(2, "switch", "switches") == "2 switches"
