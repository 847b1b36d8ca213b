"""A kind behaves as its traits say (`vocabulary/traits.py`), never as its name says.

The two experiments of issue #34: a kind registered as data alone with role `switch` (an optical
circuit switch with a QM9700's ports) gets a switch's figures from the simulation, what-if and
the exports; GPUs whose NICs reach only a management switch (an SN2201) are reported as unable
to reach each other — by the index, the rules and the simulation — with the fabric named, not
left silently out of the figures.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog
from rackdesigner.io import load_layout
from rackdesigner.model import Device, Layout, Link, PortRef, check_layout
from rackdesigner.simulation import simulate
from rackdesigner.vocabulary import kinds as kinds_module

EXAMPLES = Path(rackdesigner.__file__).resolve().parent.parent / "resources" / "examples"
OCS = "optical_circuit_switch"


def register(monkeypatch, *entries: vocabulary.Kind) -> None:
    """The shipped kind table plus `entries`, as a plugin or a new catalog kind adds them."""
    table = MappingProxyType({**kinds_module.KINDS, **{k.name: k for k in entries}})
    monkeypatch.setattr(kinds_module, "KINDS", table)
    monkeypatch.setattr(vocabulary, "KINDS", table)


def test_traits_follow_from_roles_and_flags():
    t = vocabulary.traits_of
    assert t("gpu").computes and not t("cpu").computes and t("cpu").hosts
    assert t("switch").fabric_switch and not t("mgmt_switch").fabric_switch
    assert t("mgmt_switch").forwards and t("mgmt_switch").fabric == "management"
    assert t("nvswitch").nvlink_switch and not t("nvswitch").fabric_switch
    assert t("nic").endpoint and t("dpu").endpoint
    assert t("storage").terminates and not t("storage").endpoint
    assert t("storage").side_fabric and t("mgmt_switch").side_fabric
    assert t("rack").contains == "units" and t("system").contains == "parts"
    assert t("chassis").contains == "frame" and t("chassis").draws_power
    assert not t("rack").draws_power and not t("system").draws_power
    assert t("cdu").cools and not t("pdu").cools
    assert t("transceiver").media == "optics" and t("cable").media == "cable"
    assert t("no-such-kind") == vocabulary.NO_TRAITS == t(None)
    assert vocabulary.kinds_with(lambda x: x.fabric_switch) == ("switch",)


def test_a_kind_refuses_an_unknown_role_or_trait_value():
    with pytest.raises(ValueError, match="unknown role 'router'"):
        vocabulary.Kind("x", "x", "xs", "X", None, None, "router", "other", "x")
    with pytest.raises(ValueError, match="unknown fabric 'backend'"):
        vocabulary.Traits(forwards=True, fabric="backend")


# ---- experiment 1: an optical circuit switch registered as data --------------------------------
def _ocs_kind() -> vocabulary.Kind:
    return vocabulary.Kind(OCS, "optical circuit switch", "optical circuit switches", "OCS",
                           "#117a65", "InfiniBand", "switch", "switch", "ocs")


@pytest.fixture
def ocs_design(monkeypatch, catalog, tmp_path):
    """fat-tree-2tier with every QM9700 replaced by an OCS with the QM9700's ports."""
    register(monkeypatch, _ocs_kind())
    qm = catalog.get("qm9700")
    ocs = dataclasses.replace(qm, id="ocs-64", kind=OCS, model="64-port OCS", aliases=())
    both = Catalog([*catalog, ocs])
    text = (EXAMPLES / "fat-tree-2tier.yaml").read_text(encoding="utf-8")
    assert "model: qm9700" in text
    path = tmp_path / "ocs.yaml"
    path.write_text(text.replace("model: qm9700", "model: ocs-64"), encoding="utf-8")
    return load_layout(EXAMPLES / "fat-tree-2tier.yaml", both), load_layout(path, both)


def test_a_switch_kind_registered_as_data_gets_a_switchs_figures(ocs_design):
    packet, circuit = ocs_design
    assert {d.model for d in circuit.devices()} >= {"ocs-64"}
    mine, theirs = simulate(circuit), simulate(packet)
    assert mine.bandwidth.per_gpu_scale_out_GBps > 0
    assert mine.bandwidth.bisection_GBps > 0
    assert mine.bandwidth.to_dict() == theirs.bandwidth.to_dict()
    for name in vocabulary.collective_names():
        assert mine.collective(name) == theirs.collective(name)
        assert mine.collective(name), name
    assert [m.text for m in mine.warnings()] == [m.text for m in theirs.warnings()]
    assert not circuit.index().reachability().partitioned


def test_a_switch_kind_registered_as_data_is_a_switch_to_whatif_and_exports(ocs_design,
                                                                             tmp_path):
    from rackdesigner.analysis.whatif import WhatIf
    from rackdesigner.interop import netbox, slurm

    packet, circuit = ocs_design
    for kind in ("switch", "leaf", "spine"):
        assert WhatIf(circuit).candidates(kind) == WhatIf(packet).candidates(kind), kind
    assert WhatIf(circuit).candidates("switch")
    slurm.write(circuit, tmp_path / "ocs.conf")
    slurm.write(packet, tmp_path / "ib.conf")
    assert (tmp_path / "ocs.conf").read_text() == (tmp_path / "ib.conf").read_text()
    roles = []
    for name, layout in (("ocs", circuit), ("ib", packet)):
        netbox.write(layout, tmp_path / name)
        with open(tmp_path / name / "06-devices.csv", newline="", encoding="utf-8") as f:
            roles.append({row["name"]: row["role"] for row in csv.DictReader(f)})
    assert roles[0] == roles[1]
    assert sum(role == "Fabric switch" for role in roles[0].values()) >= 2


# ---- experiment 2: GPUs whose NICs reach only a management switch -------------------------------
def _two_nodes(catalog, switch_model: str, switch_port: str) -> Layout:
    """Two single-GPU hosts whose (Ethernet) NICs go to one switch of `switch_model`."""
    layout = Layout(catalog)
    layout.add_device(Device("sw-1", switch_model))
    for n in (1, 2):
        layout.add_device(Device(f"gpu-{n}", "h100-sxm5"))
        layout.add_device(Device(f"nic-{n}", "bluefield-3-supernic"))
        layout.add_link(Link(f"pcie-{n}", PortRef(f"gpu-{n}", "pcie"),
                             PortRef(f"nic-{n}", "pcie")))
        layout.add_link(Link(f"net-{n}", PortRef(f"nic-{n}", "eth"),
                             PortRef("sw-1", switch_port, n - 1)))
    return layout


def test_gpus_joined_only_by_a_management_switch_are_reported_not_silently_dropped(catalog):
    compute = _two_nodes(catalog, "sn5600", "eth")
    reach = compute.index().reachability()
    assert not reach.partitioned and reach.side_fabrics == ()
    assert simulate(compute).bandwidth.per_gpu_scale_out_GBps > 0

    oob = _two_nodes(catalog, "sn2201", "uplink")
    reach = oob.index().reachability()
    assert reach.partitioned and reach.side_fabrics == ("management",)
    assert "only over the management fabric" in reach.describe()
    findings = [f for f in check_layout(oob) if f.code == "gpus-unreachable"]
    assert len(findings) == 1 and "management fabric" in findings[0].message
    result = simulate(oob)
    warned = [m.text for m in result.warnings() if m.code == "unreachable_gpus"]
    assert len(warned) == 1 and "management fabric" in warned[0]
    assert result.collective("all_reduce") == ()


def test_gpus_split_without_any_side_fabric_name_none(catalog):
    layout = _two_nodes(catalog, "sn5600", "eth")
    layout.remove_link("net-2")
    reach = layout.index().reachability()
    assert reach.partitioned and reach.side_fabrics == ()
    assert "fabric" not in reach.describe()
