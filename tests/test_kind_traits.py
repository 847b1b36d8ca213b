"""A kind behaves as its traits say (`vocabulary/traits.py`), never as its name says.

The two experiments of issue #34: a kind registered as data alone with role `switch` (an optical
circuit switch with a QM9700's ports) gets a switch's figures from the simulation, what-if and
the exports; GPUs whose NICs reach only a management switch (an SN2201) are reported as unable
to reach each other — by the index, the rules and the simulation — with the fabric named, not
left silently out of the figures.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog
from rackdesigner.io import load_layout
from rackdesigner.model import Device, Group, Layout, Link, PortRef, check_layout
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
def _two_nodes(catalog, switch_model: str, switch_port: str,
               nic: tuple[str, str] = ("bluefield-3-supernic", "eth")) -> Layout:
    """Two single-GPU hosts whose NICs (`nic`: model, network port group) go to one device of
    `switch_model` (its port group `switch_port`)."""
    layout = Layout(catalog)
    layout.add_device(Device("sw-1", switch_model))
    for n in (1, 2):
        layout.add_device(Device(f"gpu-{n}", "h100-sxm5"))
        layout.add_device(Device(f"nic-{n}", nic[0]))
        layout.add_link(Link(f"pcie-{n}", PortRef(f"gpu-{n}", "pcie"),
                             PortRef(f"nic-{n}", "pcie")))
        layout.add_link(Link(f"net-{n}", PortRef(f"nic-{n}", nic[1]),
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


# ---- enforced: no code outside the vocabulary decides by a kind's name ---------------------------
PACKAGE = Path(rackdesigner.__file__).resolve().parent
#: comparisons with a word that is a device kind's name but means something else there; each
#: is (module, the comparison as `ast.unparse` writes it) -> why it is not a kind's name
NOT_KIND_NAMES = {
    ("model/rules_racks.py", "g.kind == 'rack'"):
        "a group's kind (model.items.GROUP_KINDS: node, tray, rack…), not a device kind",
    ("interop/units.py", "u.kind == 'switch'"):
        "an export unit's role (host, switch, frame…), set from its devices' traits",
}


def _names(node: ast.AST) -> set[str]:
    """The string constants of `node` (one, or a tuple/list/set of them)."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}


def _kind_name_decisions(tree: ast.AST, kinds: set[str]) -> list[tuple[int, str]]:
    """Where `tree` decides by a kind's name: a comparison of something called kind with a
    kind's name, a kind's name given to a catalog or vocabulary lookup by kind (`of_kind`,
    `kind`, `traits_of`, `kinds_with_role`), a mapping keyed by kinds indexed with a kind's
    name (a colour table excepted: that is how a kind is drawn, not how it behaves)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for operand in operands:
                others = [ast.unparse(o).lower() for o in operands if o is not operand]
                if _names(operand) & kinds and any("kind" in o for o in others):
                    out.append((node.lineno, ast.unparse(node)))
                    break
        elif isinstance(node, ast.Call):
            name = ast.unparse(node.func).rsplit(".", 1)[-1]
            if name in ("of_kind", "kind", "traits_of", "kinds_with_role") and any(
                    _names(a) & kinds for a in node.args):
                out.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript):
            table = ast.unparse(node.value).upper()
            if "KIND" in table and "COLOR" not in table and _names(node.slice) & kinds:
                out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_code_outside_the_vocabulary_decides_by_a_kind_name():
    kinds = set(vocabulary.KIND_NAMES)
    found, excused = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith("vocabulary/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _kind_name_decisions(tree, kinds):
            if (module, text) in NOT_KIND_NAMES:
                excused.add((module, text))
            else:
                found.append(f"{module}:{line}: {text}")
    assert not found, ("read the kind's traits (spec.traits, index.traits(), "
                       "vocabulary.traits_of) instead of its name:\n" + "\n".join(found))
    assert excused == set(NOT_KIND_NAMES), "an exception no longer needed: remove it"


def test_the_check_finds_each_way_of_deciding_by_a_name():
    source = ("a = spec.kind == 'gpu'\nb = kind in ('nic', 'dpu')\nc = catalog.of_kind('rack')\n"
              "d = counts_by_kind['switch']\ne = spec.traits.computes\n"
              "f = KIND_COLORS['gpu']\ng = option.name == 'system'\n")
    lines = [line for line, _ in _kind_name_decisions(ast.parse(source),
                                                     set(vocabulary.KIND_NAMES))]
    assert lines == [1, 2, 3, 4]


# ---- every kind whose traits say it forwards compute traffic is a switch everywhere --------------
def _switch_models(catalog):
    return [s.id for s in catalog.doing("fabric_switch")]


@pytest.mark.parametrize("registered", [False, True], ids=["shipped", "ocs"])
def test_every_switch_trait_kind_is_a_switch_to_the_engine_whatif_and_exports(
        monkeypatch, catalog, tmp_path, registered):
    from rackdesigner.analysis.whatif import WhatIf
    from rackdesigner.generators.fattree import endpoint_model
    from rackdesigner.interop import netbox, slurm
    from rackdesigner.simulation.topology import Topology

    if registered:
        register(monkeypatch, _ocs_kind())
        catalog = Catalog([*catalog, *(dataclasses.replace(s, id=f"ocs-{s.id}", kind=OCS,
                                                           aliases=())
                                       for s in catalog.doing("fabric_switch"))])
    models = _switch_models(catalog)
    assert models and (not registered or any(m.startswith("ocs-") for m in models))
    for model in models:
        spec = catalog.get(model)
        nic = endpoint_model(catalog, spec)
        layout = Layout(catalog)
        layout.add_device(Device("sw-1", model))
        port = next(g.name for g in spec.ports if g.protocol in ("infiniband", "ethernet"))
        nic_port = next(g.name for g in nic.ports if g.protocol in ("infiniband", "ethernet"))
        for n in (1, 2):
            layout.add_group(Group(f"node-{n}", kind="node"))
            layout.add_device(Device(f"gpu-{n}", "h100-sxm5", group=f"node-{n}"))
            layout.add_device(Device(f"nic-{n}", nic.id, group=f"node-{n}"))
            layout.add_link(Link(f"pcie-{n}", PortRef(f"gpu-{n}", "pcie"),
                                 PortRef(f"nic-{n}", "pcie")))
            layout.add_link(Link(f"net-{n}", PortRef(f"nic-{n}", nic_port),
                                 PortRef("sw-1", port, n - 1)))
        topo = Topology.of(layout)
        assert topo.tier == {"sw-1": 1}, model
        assert simulate(layout).bandwidth.per_gpu_scale_out_GBps > 0, model
        assert WhatIf(layout).candidates("switch") == ["sw-1"], model
        assert WhatIf(layout).candidates("leaf") == ["sw-1"], model
        slurm.write(layout, tmp_path / f"{model}.conf")
        assert "SwitchName=" in (tmp_path / f"{model}.conf").read_text(), model
        netbox.write(layout, tmp_path / model)
        roles = (tmp_path / model / "06-devices.csv").read_text()
        assert "sw-1,Fabric switch," in roles, model


def test_nics_cabled_back_to_back_are_no_fabric_and_say_so(catalog):
    """The simulation's fabric routes NIC -> switch -> switch; the index joins GPUs over the
    same links only, so two NICs cabled to each other leave the GPUs partitioned, said."""
    layout = _two_nodes(catalog, "sn5600", "eth")
    for n in (1, 2):
        layout.remove_link(f"net-{n}")
    layout.add_link(Link("direct", PortRef("nic-1", "eth"), PortRef("nic-2", "eth")))
    assert layout.index().reachability().partitioned
    result = simulate(layout)
    assert "unreachable_gpus" in {m.code for m in result.warnings()}
    assert result.bandwidth.per_gpu_scale_out_GBps == 0


def test_gpus_joined_only_through_a_storage_system_name_the_storage_fabric(catalog):
    layout = _two_nodes(catalog, "ai400x2", "ib", nic=("connectx-7", "ib"))
    reach = layout.index().reachability()
    assert reach.partitioned and reach.side_fabrics == ("storage",)
    warned = [m.text for m in simulate(layout).warnings() if m.code == "unreachable_gpus"]
    assert len(warned) == 1 and "only over the storage fabric" in warned[0]
