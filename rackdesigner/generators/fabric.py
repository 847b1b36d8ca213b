"""Switch tiers above the leaves: spines and cores placed in racks and wired port by port.

Port numbering (0-based, the `ib.N` / `eth.N` of a link end): a leaf's ports `0..down-1` face
endpoints and `down..down+up-1` face spines; a spine's downlinks come first, then its uplinks;
a core's ports are filled pod by pod. Parallel links between the same two switches are one link
with `count` (a bundle), its index the first of its consecutive ports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rackdesigner.catalog import Catalog
from rackdesigner.generators.clos import ClosPlan
from rackdesigner.generators.design import DesignBuilder, RackPlace, fabric_port, system_power_w
from rackdesigner.model import PortRef

NETWORK_RACK = "rack-42u"
#: Class 8 OSFP module power a switch cage may feed (QM97x0 manual, Interfaces: "Class 8 (17W)
#: OSFP112 transceivers support"); used to keep network racks within their budget.
OSFP_CLASS8_W = 17.0


class SwitchRacks:
    """Fills network racks on one floor row with switches, opening a new rack when one is full."""

    def __init__(self, builder: DesignBuilder, row: int, first_col: int, parent: str | None,
                 label: str) -> None:
        self.builder = builder
        self.row = row
        self.col = first_col
        self.parent = parent
        self.label = label
        self.current: RackPlace | None = None
        self.count = 0
        self.watts = 0.0  # what the switches placed in the current rack may draw

    def place(self, device_id: str, model: str, name: str) -> None:
        b = self.builder
        height = max(1, round(b.catalog.get(model).u_height or 1))
        watts = switch_rack_watts(b.catalog, model)
        budget = _network_budget(b.catalog)
        if (self.current is None or self.current.next_u + height - 1 > self.current.height_u
                or self.watts + watts > budget):
            self.count += 1
            self.current = b.rack(NETWORK_RACK, self.row, self.col, self.parent,
                                  f"{self.label} {self.count}")
            self.col += 1
            self.watts = 0.0
        self.watts += watts
        b.device(device_id, model, self.current, name)


def _network_budget(catalog: Catalog) -> float:
    """What the switches of one network rack may draw: its power budget, and for an
    air-cooled rack no more than its air-cooling limit (rule `rack-air-limit`)."""
    spec = catalog.get(NETWORK_RACK)
    rack = spec.rack
    assert rack is not None
    if spec.cooling != "liquid" and rack.air_cooling_w is not None:
        return min(rack.power_budget_w, rack.air_cooling_w)
    return rack.power_budget_w


def switch_rack_watts(catalog: Catalog, model: str) -> float:
    """What one switch may draw in its rack: its maximum, plus class-8 (17 W) optics in every
    cage when that maximum does not include them (the switch side of its links)."""
    spec = catalog.get(model)
    watts = system_power_w(catalog, model)
    if not spec.power.max_includes_optics:
        cages = sum(math.ceil(g.count / max(1, g.ports_per_connector)) for g in spec.ports)
        watts += cages * OSFP_CLASS8_W
    return watts


def racks_needed(builder: DesignBuilder, model: str, switches: int) -> int:
    height = max(1, round(builder.catalog.get(model).u_height or 1))
    rack_u = builder.catalog.get(NETWORK_RACK).rack.height_u  # type: ignore[union-attr]
    per_rack = max(1, rack_u // height)
    watts = switch_rack_watts(builder.catalog, model)
    if watts > 0:
        per_rack = max(1, min(per_rack, int(_network_budget(builder.catalog) // watts)))
    return math.ceil(switches / per_rack)


def build_upper_tiers(builder: DesignBuilder, plan: ClosPlan, leaves: Sequence[str],
                      switch_model: str, racks: SwitchRacks) -> tuple[list[str], list[str]]:
    """Create, place and wire the spines (and cores) above `leaves`; returns their ids."""
    port = fabric_port(builder.catalog.get(switch_model))
    spines: list[str] = []
    cores: list[str] = []
    if plan.spines == 0:
        return spines, cores
    if plan.levels == 2:
        for s in range(plan.spines):
            spine = f"spine-{s + 1}"
            racks.place(spine, switch_model, f"Spine {s + 1}")
            spines.append(spine)
        m = plan.leaf_spine_m
        for li, leaf in enumerate(leaves):
            for s, spine in enumerate(spines):
                builder.connect(PortRef(leaf, port, plan.down + s * m),
                                PortRef(spine, port, li * m), m)
        return spines, cores
    # three levels
    for p in range(plan.pods):
        for j in range(plan.spines_per_pod):
            spine = f"spine-{p * plan.spines_per_pod + j + 1}"
            racks.place(spine, switch_model, f"Pod {p + 1} spine {j + 1}")
            spines.append(spine)
    for j in range(plan.spines_per_pod):
        for g in range(plan.core_group):
            core = f"core-{j * plan.core_group + g + 1}"
            racks.place(core, switch_model, f"Core group {j + 1} core {g + 1}")
            cores.append(core)
    for li, leaf in enumerate(leaves):
        p, i = divmod(li, plan.leaves_per_pod)
        for j in range(plan.spines_per_pod):
            spine = spines[p * plan.spines_per_pod + j]
            builder.connect(PortRef(leaf, port, plan.down + j), PortRef(spine, port, i))
    mc = plan.spine_core_m
    for p in range(plan.pods):
        for j in range(plan.spines_per_pod):
            spine = spines[p * plan.spines_per_pod + j]
            for g in range(plan.core_group):
                core = cores[j * plan.core_group + g]
                builder.connect(PortRef(spine, port, plan.leaves_per_pod + g * mc),
                                PortRef(core, port, p * mc), mc)
    return spines, cores


def su_group(b: DesignBuilder, clos: ClosPlan, top: str, s: int, leaves_per_su: int) -> str:
    """Add scalable unit `s` (0-based) under `top`, or under its pod in a three-level fabric
    (the pod group is added with its first SU); return the SU's group id."""
    parent = top
    if clos.levels == 3:
        sus_per_pod = clos.leaves_per_pod // leaves_per_su
        pod_no = s // sus_per_pod + 1
        parent = f"pod-{pod_no}"
        if s % sus_per_pod == 0:
            b.group(parent, f"Pod {pod_no}", "pod", top)
    return b.group(f"su-{s + 1}", f"Scalable unit {s + 1}", "su", parent)


def su_origin(s: int, per_row: int, spine_row: int, su_cols: int) -> tuple[int, int]:
    """(floor row, first column) of scalable unit `s`: SUs fill rows of `per_row`, leaving row
    `spine_row` free for the spine racks."""
    row_i, col_i = divmod(s, per_row)
    return (row_i if row_i < spine_row else row_i + 1), col_i * (su_cols + 1)
