"""Mixed designs: several system types on one compute fabric (`generate mixed --systems
gb200-nvl72:8,dgx-b200:32`), e.g. NVL72 racks up to a liquid-cooling limit and air-cooled
DGX nodes for the rest.

Each system type keeps its own scalable units as its reference design builds them (the NVL72
SU of `nvl72pod`: 8 racks, 4 rails of leaves, `ceil(144 / (radix/2))` leaves per rail; the DGX
SU of `rail`: radix/2 nodes, one leaf per rail) and every leaf of every SU hangs from **one
spine layer** (`clos.plan_two_level`), so traffic between the types crosses one spine hop.
`oversubscription` R gives every leaf 1/R of its uplinks (R:1 above the leaves). Counts are
NVL72 racks for `gb200-nvl72` and nodes for DGX systems.

Left out: a third switch level (a mixed fabric larger than one spine layer takes is refused
with the limit), the storage and management fabrics, as in the single-type designs.
"""

from __future__ import annotations

import dataclasses
import math

from rackdesigner.catalog import Catalog
from rackdesigner.generators.clos import plan_two_level
from rackdesigner.generators.design import (
    DesignBuilder,
    GeneratorError,
    compute_nic_part,
    fabric_port,
)
from rackdesigner.generators.ethernet import compute_nic_for
from rackdesigner.generators.fabric import SwitchRacks, build_upper_tiers, racks_needed
from rackdesigner.generators.systems import (
    NVL72,
    NVL72_RACK,
    add_nvl72_parts,
    check_protocols,
    node_prefix,
    pick_rack,
)
from rackdesigner.model import Layout, PortRef, instantiate

NVL72_RACKS_PER_SU = 8
NVL72_TRAYS = 18
NVL72_RAILS = 4
DEFAULT_SWITCH = "qm9700"


def parse_systems(text: str) -> list[tuple[str, int]]:
    """`gb200-nvl72:8,dgx-b200:32` -> [("gb200-nvl72", 8), ("dgx-b200", 32)]."""
    out: list[tuple[str, int]] = []
    for item in str(text).split(","):
        name, sep, count = item.strip().partition(":")
        if not sep or not name or not count.strip().isdigit() or int(count) < 0:
            raise GeneratorError(f"systems: expected system:count pairs such as "
                                 f"gb200-nvl72:8,dgx-b200:32, got {item.strip()!r}", "systems")
        if any(name == seen for seen, _ in out):
            raise GeneratorError(f"systems: {name} is listed twice", "systems")
        if int(count):
            out.append((name.strip(), int(count)))
    if not out:
        raise GeneratorError("systems: give at least one system with a count above 0",
                             "systems")
    return out


@dataclasses.dataclass(frozen=True)
class _Part:
    system: str
    count: int  # NVL72 racks or nodes
    sus: int
    leaves_per_su: int
    rails: int
    nodes_per_su: int  # NVL72: trays per SU


def _plan_part(catalog: Catalog, system: str, count: int, down: int) -> _Part:
    if system not in catalog or catalog.get(system).traits.contains != "parts":
        known = ", ".join(s.id for s in catalog.doing("contains", "parts"))
        raise GeneratorError(f"systems: {system!r} is not a system (one of: {known})",
                             "systems")
    if system == NVL72:
        groups = math.ceil(NVL72_RACKS_PER_SU * NVL72_TRAYS / down)
        return _Part(system, count, math.ceil(count / NVL72_RACKS_PER_SU),
                     groups * NVL72_RAILS, NVL72_RAILS, NVL72_RACKS_PER_SU * NVL72_TRAYS)
    _, rails, _ = compute_nic_part(catalog, system)
    return _Part(system, count, math.ceil(count / down), rails, rails, down)


def build_mixed(catalog: Catalog, systems: str, switch: str | None = None,
                oversubscription: float = 1.0) -> Layout:
    """The systems of `systems` (see `parse_systems`) on one two-level fabric of `switch`."""
    wanted = parse_systems(systems)
    switch = switch or DEFAULT_SWITCH
    if switch not in catalog or not catalog.get(switch).traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try qm9700 or q3400)", "switch")
    sw_spec = catalog.get(switch)
    sw_port = fabric_port(sw_spec)
    radix = sw_spec.port(sw_port).count
    down = radix // 2
    if not oversubscription >= 1:
        raise GeneratorError(f"oversubscription must be 1 or more (down:up ratio), got "
                             f"{oversubscription:g}", "oversubscription")
    up = max(1, math.floor((radix - down) / oversubscription + 1e-9))
    parts = [_plan_part(catalog, s, n, down) for s, n in wanted]
    leaves_total = sum(p.sus * p.leaves_per_su for p in parts)
    clos = plan_two_level(leaves_total, radix, down, up)
    label = " + ".join(f"{n} x {catalog.get(s).model}" for s, n in wanted)
    title = f"Mixed fabric: {label}"
    description = (f"{label} on one rail-optimized {switch} fabric (each type's scalable units "
                   f"as its reference design builds them, every leaf under one spine layer, "
                   f"{oversubscription:g}:1 above the leaves). Storage and management fabrics "
                   "are not included.")
    b = DesignBuilder(catalog, title, description)
    top = b.group("fabric", title, "pod")
    leaves: list[str] = []
    su_no = 0
    row = 0
    for part in parts:
        for s in range(part.sus):
            su_no += 1
            su = b.group(f"su-{su_no}", f"Scalable unit {su_no} ({part.system})", "su", top)
            net = SwitchRacks(b, row, 0, su, f"SU{su_no} network rack")
            su_leaves = place_su_leaves(net, sw_spec.id, su_no, part, len(leaves))
            leaves.extend(su_leaves)
            first = s * (part.nodes_per_su if part.system != NVL72 else NVL72_RACKS_PER_SU)
            if part.system == NVL72:
                _nvl72_su(b, catalog, part, su, su_leaves, first, row, net.count, down,
                          sw_spec, sw_port)
            else:
                _dgx_su(b, catalog, part, su, su_leaves, first, row, net.count, sw_spec,
                        sw_port)
            row += 1
    if clos.spines:
        tier = b.group("spine-tier", "Spine switches", "fabric", top)
        n_racks = racks_needed(b, switch, clos.spines)
        build_upper_tiers(b, clos, leaves, switch, SwitchRacks(b, row + 1, max(0, 4 - n_racks // 2),
                                                               tier, "Spine rack"))
    return b.build()


def _nvl72_su(b: DesignBuilder, catalog: Catalog, part: _Part, su: str, su_leaves: list[str],
              first: int, row: int, col0: int, down: int, sw_spec, sw_port: str) -> None:
    nic_model = compute_nic_for(catalog, "connectx-7", sw_spec)
    nic_port = fabric_port(catalog.get(nic_model))
    check_protocols(catalog.get(nic_model), nic_port, sw_spec, sw_port)
    slot = 0
    for k in range(first, min(part.count, first + NVL72_RACKS_PER_SU)):
        root = f"nvl72-{k + 1}"
        place = b.rack(NVL72_RACK, row, col0 + k - first, None, f"NVL72 rack {k + 1}",
                       rack_group=root)
        parts = instantiate(catalog, NVL72, root, rack=place.id, u=1, group=su,
                            name=f"GB200 NVL72 {k + 1}")
        parts.groups[0] = dataclasses.replace(parts.groups[0], collapsed=True)
        add_nvl72_parts(b, parts, place)
        for t in range(NVL72_TRAYS):
            group, port = divmod(slot, down)
            for r in range(NVL72_RAILS):
                nic = f"{root}.tray{t}.nic{r}"
                if nic_model != "connectx-7":
                    b.devices[nic] = dataclasses.replace(b.devices[nic], model=nic_model)
                b.connect(PortRef(nic, nic_port), PortRef(su_leaves[group * NVL72_RAILS + r],
                                                          sw_port, port))
            slot += 1


def _dgx_su(b: DesignBuilder, catalog: Catalog, part: _Part, su: str, su_leaves: list[str],
            first: int, row: int, col0: int, sw_spec, sw_port: str) -> None:
    nic_part, rails, nic_spec = compute_nic_part(catalog, part.system)
    nic_model = compute_nic_for(catalog, nic_spec.id, sw_spec)
    nic_spec2 = catalog.get(nic_model)
    nic_port = fabric_port(nic_spec2)
    check_protocols(nic_spec2, nic_port, sw_spec, sw_port)
    single = nic_spec2.port(nic_port).count == 1
    rack_model, per_rack = pick_rack(catalog, part.system)
    nodes = range(first, min(part.count, first + part.nodes_per_su))
    racks = [b.rack(rack_model, row, col0 + k, su, f"{su} compute rack {k + 1}")
             for k in range(math.ceil(len(nodes) / per_rack))]
    prefix = node_prefix(part.system)
    spec = catalog.get(part.system)
    for j, n in enumerate(nodes):
        node = f"{prefix}-{part.system.split('-')[-1]}-{n + 1}"
        b.system(part.system, node, racks[j // per_rack], f"{spec.model} {n + 1}",
                 collapsed=True)
        for r in range(rails):
            nic = f"{node}.{nic_part}{r}"
            if nic_model != nic_spec.id:
                b.devices[nic] = dataclasses.replace(b.devices[nic], model=nic_model)
            b.connect(PortRef(nic, nic_port, None if single else 0),
                      PortRef(su_leaves[r], sw_port, j))


def place_su_leaves(net: SwitchRacks, switch: str, su_no: int, part: _Part,
                    start: int) -> list[str]:
    """One SU's leaves in its network rack, rail by rail, numbered on from `start` (the
    leaves placed so far); `mixed` and `pods` place them alike."""
    out = []
    for k in range(part.leaves_per_su):
        leaf = f"leaf-{start + k + 1}"
        net.place(leaf, switch, f"SU{su_no} rail {k % part.rails} leaf {k // part.rails + 1}")
        out.append(leaf)
    return out
