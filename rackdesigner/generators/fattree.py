"""A generic two- or three-level fat tree of one switch model, with NICs as its endpoints.

Each leaf stands at the top of its own rack with its endpoints below it (top-of-rack, so the
endpoint cables are copper where the catalog has copper of that rate); the leaf racks fill a
roughly square floor and the spines and cores stand in a row across its middle.
`oversubscription` R splits each leaf's ports R:1 between endpoints and uplinks; the tiers above
are non-blocking. Capacity with k-port switches and R = 1:
k²/2 endpoints on two levels, k³/4 on three (Al-Fares et al., SIGCOMM 2008).
"""

from __future__ import annotations

import math

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.generators.cabling import RACK_WIDTH_M, ROW_PITCH_M
from rackdesigner.generators.clos import ClosPlan, plan_three_level, plan_two_level
from rackdesigner.generators.design import (
    DesignBuilder,
    GeneratorError,
    check_size,
    fabric_port,
)
from rackdesigner.generators.fabric import (
    NETWORK_RACK,
    SwitchRacks,
    build_upper_tiers,
    racks_needed,
)
from rackdesigner.model import Layout, PortRef
from rackdesigner.model.instantiate import CELL_H, CELL_W

ENDPOINT_COLUMNS = 4


def leaf_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """(down, up) ports of a leaf for a down:up ratio of at most `oversubscription`."""
    if not oversubscription >= 1:
        raise GeneratorError(f"oversubscription must be 1 or more (down:up ratio), got "
                             f"{oversubscription:g}", "oversubscription")
    up = int(radix // (oversubscription + 1))
    if up < 1:
        raise GeneratorError(f"an oversubscription of {oversubscription:g} leaves no uplink on "
                             f"a {radix}-port switch")
    down = min(radix - up, math.floor(up * oversubscription + 1e-9))
    return down, up


def capacity(radix: int, levels: int, oversubscription: float = 1.0) -> int:
    down, _ = leaf_split(radix, oversubscription)
    if levels == 2:
        return radix * down
    return radix * (radix // 2) * down


def plan_fat_tree(catalog: Catalog, switch: str, levels: int, endpoints: int | None = None,
                  oversubscription: float = 1.0) -> ClosPlan:
    spec = catalog.get(switch)
    if not spec.traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try one of: "
                             f"{', '.join(s.id for s in catalog.doing('fabric_switch'))})")
    if levels not in (2, 3):
        raise GeneratorError(f"a fat tree has 2 or 3 switch levels, not {levels}", "levels")
    radix = spec.port(fabric_port(spec)).count
    down, up = leaf_split(radix, oversubscription)
    most = capacity(radix, levels, oversubscription)
    if endpoints is None:
        endpoints = most
    if endpoints < 1:
        raise GeneratorError("a fat tree needs at least 1 endpoint", "endpoints")
    if endpoints > most:
        hint = "; set {levels} to 3" if levels == 2 else ""
        raise GeneratorError(f"{levels} levels of {radix}-port {spec.id} switches serve at most "
                             f"{most} endpoints at {down} per leaf; asked for {endpoints}{hint}")
    leaves = math.ceil(endpoints / down)
    if levels == 2:
        return plan_two_level(leaves, radix, down, up)
    return plan_three_level(leaves, radix, down, up, radix // 2)


def endpoint_model(catalog: Catalog, switch: DeviceSpec) -> DeviceSpec:
    """The adapter that matches a switch: same protocol, the closest rate, single port first."""
    port = switch.port(fabric_port(switch))
    best: tuple[tuple, DeviceSpec] | None = None
    for spec in catalog.doing("endpoint"):
        for group in spec.ports_of(port.protocol):
            key = (abs(group.rate_gbps - port.rate_gbps), group.count, spec.id)
            if best is None or key < best[0]:
                best = (key, spec)
    if best is None:
        raise GeneratorError(f"the catalog has no adapter for {switch.id}'s {port.protocol} ports")
    return best[1]


def build_fat_tree(catalog: Catalog, switch: str, levels: int, endpoints: int | None = None,
                   oversubscription: float = 1.0, endpoint: str | None = None) -> Layout:
    plan = plan_fat_tree(catalog, switch, levels, endpoints, oversubscription)
    sw_spec = catalog.get(switch)
    sw_port = fabric_port(sw_spec)
    ep_spec = catalog.get(endpoint) if endpoint else endpoint_model(catalog, sw_spec)
    if not ep_spec.traits.endpoint:
        raise GeneratorError(f"the endpoint must be a NIC model, {ep_spec.id} is a {ep_spec.kind}",
                             "endpoint")
    ep_port = fabric_port(ep_spec)
    if ep_spec.port(ep_port).protocol != sw_spec.port(sw_port).protocol:
        raise GeneratorError(f"{ep_spec.id} does not speak {sw_spec.id}'s protocol")
    n_endpoints = endpoints if endpoints is not None else plan.leaves * plan.down
    check_size(n_endpoints, "endpoints (give {endpoints} to build part of the capacity)")
    ratio = f", {oversubscription:g}:1 oversubscribed" if oversubscription != 1 else ""
    title = f"{levels}-level fat tree of {sw_spec.model}, {n_endpoints} endpoints{ratio}"
    b = DesignBuilder(catalog, title, f"{title}: {plan.leaves} leaves, {plan.spines} spines, "
                      f"{plan.cores} cores; endpoints are {ep_spec.model} adapters.")
    top = b.group("fabric", title, "fabric")
    ep_single = ep_spec.port(ep_port).count == 1
    leaf_height = max(1, round(sw_spec.u_height or 1))
    # a roughly square floor keeps the longest leaf-spine run short
    per_row = max(1, math.ceil(math.sqrt(plan.leaves * ROW_PITCH_M / RACK_WIDTH_M)))
    rows = math.ceil(plan.leaves / per_row)
    spine_row = rows // 2 if rows > 1 else 1
    leaves: list[str] = []
    done = 0
    for li in range(plan.leaves):
        parent = top
        if plan.levels == 3:
            p = li // plan.leaves_per_pod
            parent = f"pod-{p + 1}"
            if li % plan.leaves_per_pod == 0:
                b.group(parent, f"Pod {p + 1}", "pod", top)
        row_i, col = divmod(li, per_row)
        row = row_i if row_i < spine_row else row_i + 1
        rack = b.rack(NETWORK_RACK, row, col, parent, f"Leaf rack {li + 1}")
        leaf = f"leaf-{li + 1}"
        b.device(leaf, sw_spec.id, rack, f"Leaf {li + 1}", u=rack.height_u - leaf_height + 1)
        leaves.append(leaf)
        here = min(plan.down, n_endpoints - done)
        span = rack.height_u - leaf_height
        ids = []
        for j in range(here):
            done += 1
            nic = f"nic-{done}"
            # endpoints drawn in a grid under their leaf, the highest U first
            row_j, col_j = divmod(here - 1 - j, ENDPOINT_COLUMNS)
            b.device(nic, ep_spec.id, rack, f"Endpoint {done}", u=1 + j * span // plan.down,
                     pos=(col_j * CELL_W, row_j * CELL_H))
            ids.append(nic)
            b.connect(PortRef(nic, ep_port, None if ep_single else 0), PortRef(leaf, sw_port, j))
        b.add_block(rack, span, ids)
    if plan.spines:
        tier = b.group("spine-tier", "Spine and core switches", "fabric", top)
        cols = min(plan.leaves, per_row)
        n_racks = racks_needed(b, switch, plan.spines + plan.cores)
        racks = SwitchRacks(b, spine_row, max(0, (cols - n_racks) // 2), tier, "Spine rack")
        build_upper_tiers(b, plan, leaves, switch, racks)
    return b.build()
