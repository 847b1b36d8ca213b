"""Pods joined by a core (`generate pods --pods gb200-nvl72:8/dgx-b200:32`): several pods,
each a mixed fabric of its own (`mixed.py`: each system type's scalable units as its reference
design builds them, their leaves under the pod's own spine layer), and a **core tier** above
the pods' spines, so traffic inside a pod turns at its spines and traffic between pods crosses
the core.

Pods are separated by `/`, the systems of one pod by `,` (`gb200-nvl72:8,dgx-b200:16/
dgx-b200:32`: a hybrid pod and a DGX pod). Each pod's spine layer is sized as a three-level
SuperPOD sizes its pod spines (`clos.plan_three_level`): a spine's downlinks take at most half
its ports, one link bundle from every leaf of the pod to every spine of it, the spine count the
smallest divisor of a leaf's uplinks that gives the spines enough ports. Every spine has as
many uplinks to the core as downlinks (`core_oversubscription` R: 1/R of them), spread evenly
over the core switches, whose count is the fewest whose ports take every spine uplink (the
CLI's `--core R`). Leaves
keep the `oversubscription` of `mixed` (R:1 above the leaves).

Left out: the storage and management fabrics (as in every generated design); a pod larger
than one pod spine layer takes (more leaves than half a switch's ports) is refused with the
limit.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

from rackdesigner.catalog import Catalog
from rackdesigner.generators.design import DesignBuilder, GeneratorError, fabric_port
from rackdesigner.generators.fabric import SwitchRacks
from rackdesigner.generators.mixed import (
    DEFAULT_SWITCH,
    NVL72_RACKS_PER_SU,
    _dgx_su,
    _nvl72_su,
    _plan_part,
    parse_systems,
    place_su_leaves,
)
from rackdesigner.generators.systems import NVL72
from rackdesigner.model import Layout, PortRef

POD_SEP = "/"


def parse_pods(text: str) -> list[list[tuple[str, int]]]:
    """`gb200-nvl72:8/dgx-b200:32` -> [[("gb200-nvl72", 8)], [("dgx-b200", 32)]]."""
    pods = [p for p in str(text).split(POD_SEP)]
    if len(pods) < 2 or any(not p.strip() for p in pods):
        raise GeneratorError(f"pods: expected two or more pods separated by '{POD_SEP}', each "
                             "system:count pairs (gb200-nvl72:8/dgx-b200:32), got "
                             f"{text!r}", "pods")
    return [parse_systems(p) for p in pods]


def _divisor_at_least(n: int, minimum: float) -> int | None:
    return next((d for d in range(1, n + 1) if n % d == 0 and d >= minimum), None)


def build_pods(catalog: Catalog, pods: str, switch: str | None = None,
               oversubscription: float = 1.0, core_oversubscription: float = 1.0) -> Layout:
    """The pods of `pods` (`parse_pods`), each on its own leaf/spine layer of `switch`,
    joined by a core tier."""
    wanted = parse_pods(pods)
    switch = switch or DEFAULT_SWITCH
    if switch not in catalog or not catalog.get(switch).traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try qm9700 or q3400)", "switch")
    for name, value in (("oversubscription", oversubscription),
                        ("core_oversubscription", core_oversubscription)):
        if not value >= 1:
            raise GeneratorError(f"{name} must be 1 or more (down:up ratio), got {value:g}",
                                 name)
    sw_spec = catalog.get(switch)
    sw_port = fabric_port(sw_spec)
    radix = sw_spec.port(sw_port).count
    down = radix // 2
    up = max(1, math.floor((radix - down) / oversubscription + 1e-9))
    for pod in wanted:  # every system known before anything is named or built
        for system, count in pod:
            _plan_part(catalog, system, count, down)
    labels = [" + ".join(f"{n} x {catalog.get(s).model}" for s, n in pod) for pod in wanted]
    title = "Pods joined by a core: " + " | ".join(labels)
    description = (f"{len(wanted)} pods on {switch} ({'; '.join(labels)}), each with its own "
                   f"spine layer ({oversubscription:g}:1 above the leaves), joined by a core "
                   f"tier ({core_oversubscription:g}:1 above the spines). Storage and management "
                   "fabrics are not included.")
    b = DesignBuilder(catalog, title, description)
    top = b.group("fabric", title, "fabric")
    offsets: dict[str, int] = defaultdict(int)  # nodes/racks of each system already placed
    leaves: list[str] = []
    spine_ups: list[tuple[str, int, int]] = []  # (spine, first uplink port, uplinks)
    su_no = row = 0
    for p, pod in enumerate(wanted, 1):
        pod_group = b.group(f"pod-{p}", f"Pod {p} ({labels[p - 1]})", "pod", top)
        pod_leaves: list[str] = []
        for system, count in pod:
            part = _plan_part(catalog, system, count, down)
            first0 = offsets[system]
            part = dataclasses.replace(part, count=first0 + count)  # ids continue per system
            per_su = NVL72_RACKS_PER_SU if system == NVL72 else part.nodes_per_su
            for s in range(part.sus):
                su_no += 1
                su = b.group(f"su-{su_no}", f"Scalable unit {su_no} ({system})", "su",
                             pod_group)
                net = SwitchRacks(b, row, 0, su, f"SU{su_no} network rack")
                su_leaves = place_su_leaves(net, sw_spec.id, su_no, part, len(leaves))
                leaves.extend(su_leaves)
                pod_leaves.extend(su_leaves)
                first = first0 + s * per_su
                if system == NVL72:
                    _nvl72_su(b, catalog, part, su, su_leaves, first, row, net.count, down,
                              sw_spec, sw_port)
                else:
                    _dgx_su(b, catalog, part, su, su_leaves, first, row, net.count, sw_spec,
                            sw_port)
                row += 1
            offsets[system] += count
        row = _pod_spines(b, p, pod_group, pod_leaves, switch, sw_port, radix, down, up,
                          core_oversubscription, spine_ups, row)
    _core(b, top, spine_ups, switch, sw_port, radix, row)
    return b.build()


def _pod_spines(b: DesignBuilder, p: int, pod_group: str, pod_leaves: list[str], switch: str,
                port: str, radix: int, down: int, up: int, core_r: float,
                spine_ups: list[tuple[str, int, int]], row: int) -> int:
    half = radix // 2
    if len(pod_leaves) > half:
        raise GeneratorError(f"pod {p} has {len(pod_leaves)} leaves; a pod spine layer of "
                             f"{radix}-port switches takes at most {half} (half its ports face "
                             "the core): split the pod", "pods")
    spines = _divisor_at_least(up, len(pod_leaves) * up / half)
    assert spines is not None  # len(pod_leaves) <= half guarantees `up` itself works
    m = up // spines
    tier = b.group(f"pod-{p}-spines", f"Pod {p} spine switches", "fabric", pod_group)
    racks = SwitchRacks(b, row, 0, tier, f"Pod {p} spine rack")
    first = len(spine_ups)
    ids = [f"spine-{first + j + 1}" for j in range(spines)]
    for j, spine in enumerate(ids):
        racks.place(spine, switch, f"Pod {p} spine {j + 1}")
    for li, leaf in enumerate(pod_leaves):
        for j, spine in enumerate(ids):
            b.connect(PortRef(leaf, port, down + j * m), PortRef(spine, port, li * m), m)
    spine_down = len(pod_leaves) * m
    uplinks = max(1, math.floor(spine_down / core_r + 1e-9))
    for spine in ids:
        spine_ups.append((spine, spine_down, uplinks))
    return row + 1


def _core(b: DesignBuilder, top: str, spine_ups: list[tuple[str, int, int]], switch: str,
          port: str, radix: int, row: int) -> None:
    total = sum(n for _, _, n in spine_ups)
    cores = max(1, math.ceil(total / radix))
    while True:  # spread each spine's uplinks evenly; a core short of ports takes one more core
        used = [0] * cores
        plan: list[tuple[str, int, int, int]] = []  # spine, its port, core index, links
        start = 0
        for spine, first_port, n in spine_ups:
            at = first_port
            for k in range(min(n, cores)):
                c = (start + k) % cores
                links = n // cores + (1 if k < n % cores else 0)
                plan.append((spine, at, c, links))
                used[c] += links
                at += links
            start = (start + n) % cores
        if max(used) <= radix:
            break
        cores += 1
    tier = b.group("core-tier", "Core switches", "fabric", top)
    racks = SwitchRacks(b, row, 0, tier, "Core rack")
    ids = [f"core-{c + 1}" for c in range(cores)]
    for c, core in enumerate(ids):
        racks.place(core, switch, f"Core {c + 1}")
    next_port = [0] * cores
    for spine, at, c, links in plan:
        b.connect(PortRef(spine, port, at), PortRef(ids[c], port, next_port[c]), links)
        next_port[c] += links
