"""Rail-optimized fabrics and the DGX SuperPOD compute fabric built from them.

A scalable unit (SU) is as many nodes as a leaf has endpoint ports (half its radix), with one
leaf per rail: NIC *i* of every node in the SU connects to the SU's rail-*i* leaf, on the port
numbered by the node's slot. Leaves connect to spines (two levels) or, when there are more
leaves than a spine has ports, to pod spines and cores (three levels, pods of whole SUs), see
`clos`. Partial SUs get their full leaves and uplinks, as the reference architectures ask.

Floor: each SU is one row segment of compute racks with its leaf rack in the middle; SUs fill a
roughly square grid, and the spine/core racks stand in a row across its middle.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from rackdesigner.catalog import Catalog
from rackdesigner.generators.cabling import RACK_WIDTH_M, ROW_PITCH_M
from rackdesigner.generators.clos import ClosPlan, plan_three_level, plan_two_level
from rackdesigner.generators.design import (
    DesignBuilder,
    GeneratorError,
    check_size,
    compute_nic_part,
    fabric_port,
)
from rackdesigner.generators.ethernet import compute_nic_for
from rackdesigner.generators.fabric import (
    SwitchRacks,
    build_upper_tiers,
    racks_needed,
    su_group,
    su_origin,
)
from rackdesigner.generators.systems import check_protocols, node_prefix, pick_rack
from rackdesigner.model import Layout, PortRef

#: Node groups are drawn collapsed above this many nodes (the GUI expands them on demand).
COLLAPSE_ABOVE = 4


@dataclass(frozen=True, slots=True)
class RailPlan:
    system: str
    switch: str
    nodes: int
    rails: int
    nodes_per_su: int
    sus: int
    reserved: int
    clos: ClosPlan
    nic: str = ""  # compute NIC model when not the system's own (Spectrum-X: a SuperNIC)
    #: the system's compute NICs per node (its own count unless fewer were asked for)
    system_nics: int = 0

    @property
    def nic_stride(self) -> int:
        """Every how many of the system's compute NICs one is kept: 1, or 2 for a board of
        8 GPUs built with 4 NICs (one per PCIe switch, shared by the switch's two GPUs)."""
        return max(1, (self.system_nics or self.rails) // self.rails)


@dataclass(frozen=True, slots=True)
class Reserved:
    """Node slots of SU 1 given to something else (the H100 RA's UFM connections)."""

    slots: int = 0
    model: str = ""
    appliances: int = 0
    cables: int = 0
    label: str = ""


def plan_rail(catalog: Catalog, system: str, nodes: int, switch: str,
              nodes_per_su: int | None = None, reserved: int = 0,
              oversubscription: float = 1.0, nics: int | None = None) -> RailPlan:
    """The plan of `nodes` systems on rails of `switch`; `oversubscription` R keeps each leaf's
    half-radix node ports and gives it 1/R as many uplinks (an R:1 taper above the leaves);
    `nics` keeps that many of each system's compute NICs (one rail each): half of them is the
    HGX board built with 4 NICs, one per PCIe switch, each shared by the switch's two GPUs."""
    sys_spec = catalog.get(system)
    if sys_spec.traits.contains != "parts":
        raise GeneratorError(f"{system} is not a system (try one of: "
                             f"{', '.join(s.id for s in catalog.doing('contains', 'parts'))})")
    sw_spec = catalog.get(switch)
    if not sw_spec.traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try one of: "
                             f"{', '.join(s.id for s in catalog.doing('fabric_switch'))})")
    if nodes < 1:
        raise GeneratorError("at least 1 node is needed", "nodes")
    _, rails, nic_spec = compute_nic_part(catalog, system)
    system_nics = rails
    if nics is not None:
        if nics not in (rails, rails // 2) or nics < 1:
            raise GeneratorError(f"{system} has {rails} compute NICs: nics can be {rails} or "
                                 f"{rails // 2} (one per pair of GPUs), got {nics}", "nics")
        rails = nics
    check_size(nodes * rails, "fabric endpoints")
    own_nic = nic_spec.id
    nic_spec = catalog.get(compute_nic_for(catalog, own_nic, sw_spec))
    sw_port = fabric_port(sw_spec)
    check_protocols(nic_spec, fabric_port(nic_spec), sw_spec, sw_port)
    radix = sw_spec.port(sw_port).count
    down = radix // 2
    nps = nodes_per_su or down
    if nps > down:
        raise GeneratorError(f"{nps} nodes per SU need {nps} leaf ports; {switch} leaves have "
                             f"{down} (half of {radix})")
    if not oversubscription >= 1:
        raise GeneratorError(f"oversubscription must be 1 or more (down:up ratio), got "
                             f"{oversubscription:g}", "oversubscription")
    up = max(1, math.floor((radix - down) / oversubscription + 1e-9))
    sus = math.ceil((nodes + reserved) / nps)
    leaves = sus * rails
    if leaves <= radix:
        clos = plan_two_level(leaves, radix, down, up)
    else:
        sus_per_pod = down // rails
        if sus_per_pod < 1:
            raise GeneratorError(f"{system} has {rails} rails; a three-level pod of {switch} "
                                 f"takes at most {down} leaves")
        clos = plan_three_level(leaves, radix, down, up, sus_per_pod * rails)
    return RailPlan(sys_spec.id, sw_spec.id, nodes, rails, nps, sus, reserved, clos,
                    "" if nic_spec.id == own_nic else nic_spec.id, system_nics)


def build_rail(catalog: Catalog, plan: RailPlan, title: str, description: str,
               reserved: Reserved | None = None,
               fabrics: frozenset[str] = frozenset({"compute"})) -> Layout:
    reserved = reserved or Reserved()
    b = DesignBuilder(catalog, title, description)
    sys_spec = catalog.get(plan.system)
    sw_spec = catalog.get(plan.switch)
    part, _, nic_spec = compute_nic_part(catalog, plan.system)
    rails, stride = plan.rails, plan.nic_stride
    if plan.nic:
        nic_spec = catalog.get(plan.nic)
    nic_port = fabric_port(nic_spec)
    nic_single = nic_spec.port(nic_port).count == 1
    sw_port = fabric_port(sw_spec)
    rack_model, per_rack = pick_rack(catalog, plan.system)
    compute_racks = math.ceil(plan.nodes_per_su / per_rack)
    su_cols = compute_racks + 1 + racks_needed(b, plan.switch, rails + reserved.appliances) - 1
    su_width_m = (su_cols + 1) * RACK_WIDTH_M
    per_row = max(1, min(plan.sus, round(math.sqrt(plan.sus * ROW_PITCH_M / su_width_m))))
    su_rows = math.ceil(plan.sus / per_row)
    spine_row = su_rows // 2 if su_rows > 1 else 1
    clos = plan.clos

    top = b.group("fabric", title, "pod")
    prefix = node_prefix(plan.system)
    collapsed = plan.nodes > COLLAPSE_ABOVE
    leaves: list[str] = []
    node_no = 0
    half = compute_racks // 2
    for s in range(plan.sus):
        su = su_group(b, clos, top, s, rails)
        row, col0 = su_origin(s, per_row, spine_row, su_cols)
        slots = plan.nodes_per_su - (reserved.slots if s == 0 else 0)
        # only the racks this SU's nodes fill (a 16-node design is not 8 racks of which 4 are
        # empty: the floor keeps their places for growth, the BOM and exports have none)
        filled = math.ceil(min(slots, plan.nodes - node_no) / per_rack)
        left = min(half, filled)
        # racks numbered in floor order: compute racks, the network rack(s), compute racks
        racks = [b.rack(rack_model, row, col0 + k, su, f"SU{s + 1} compute rack {k + 1}")
                 for k in range(left)]
        net = SwitchRacks(b, row, col0 + half, su, f"SU{s + 1} network rack")
        su_leaves = []
        for r in range(rails):
            leaf = f"leaf-{s * rails + r + 1}"
            net.place(leaf, sw_spec.id, f"SU{s + 1} rail {r} leaf")
            su_leaves.append(leaf)
        leaves.extend(su_leaves)
        if s == 0 and reserved.appliances:
            _add_reserved(b, net, reserved, su_leaves, plan.nodes_per_su, sw_port)
        racks += [b.rack(rack_model, row, col0 + k + net.count, su,
                         f"SU{s + 1} compute rack {k + 1}")
                  for k in range(half, half + filled - left)]
        for j in range(slots):
            if node_no >= plan.nodes:
                break
            node_no += 1
            node = f"{prefix}-{node_no}"
            b.system(plan.system, node, racks[j // per_rack],
                     f"SU{s + 1} {sys_spec.model} {j + 1}", collapsed=collapsed,
                     drop=frozenset(f"{node}.{part}{i}" for i in range(rails * stride)
                                    if i % stride))
            for r in range(rails):
                nic_id = f"{node}.{part}{r * stride}"
                if plan.nic:  # Spectrum-X: a SuperNIC in the compute NIC's place
                    nic = b.devices[nic_id]
                    b.devices[nic.id] = dataclasses.replace(nic, model=plan.nic)
                b.connect(PortRef(nic_id, nic_port, None if nic_single else 0),
                          PortRef(su_leaves[r], sw_port, j))
    if clos.spines:
        tier = b.group("spine-tier", "Spine and core switches", "fabric", top)
        n_racks = racks_needed(b, plan.switch, clos.spines + clos.cores)
        first = max(0, (per_row * (su_cols + 1) - n_racks) // 2)
        spine_racks = SwitchRacks(b, spine_row, first, tier, "Spine rack")
        build_upper_tiers(b, clos, leaves, plan.switch, spine_racks)
    if "storage" in fabrics:  # only when asked: the compute-only design costs nothing more
        from rackdesigner.generators.sidefabrics import add_storage_fabric

        add_storage_fabric(b, plan.nodes)
    if "oob" in fabrics:
        from rackdesigner.generators.sidefabrics import add_oob_fabric

        add_oob_fabric(b)
    return b.build()


def _add_reserved(b: DesignBuilder, net: SwitchRacks, reserved: Reserved, su_leaves: list[str],
                  nodes_per_su: int, sw_port: str) -> None:
    """UFM appliances on the last node slots of SU 1 (their leaf ports), one cable per port."""
    spec = b.catalog.get(reserved.model)
    port = fabric_port(spec)
    per = spec.port(port).count
    group = b.group("ufm", reserved.label, "node", net.current.group if net.current else None)
    cable = 0
    for a in range(reserved.appliances):
        dev = f"ufm-{a + 1}"
        assert net.current is not None
        b.device(dev, spec.id, net.current, f"UFM appliance {a + 1} fabric adapter", group,
                 u=net.current.take(1))
        for p in range(per):
            if cable >= reserved.cables:
                break
            slot = nodes_per_su - 1 - (cable // len(su_leaves))
            leaf = su_leaves[cable % len(su_leaves)]
            b.connect(PortRef(dev, port, p if per > 1 else None), PortRef(leaf, sw_port, slot))
            cable += 1
