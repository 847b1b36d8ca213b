"""`simulate(layout, ...)`: derive the structure once, then run every model over it.

Scope is the whole layout, a group (id or name, sub-groups included) or a list of GPU ids. GPUs
that cannot all reach each other are reported in `messages`; collectives and fabric figures
then cover the largest set of mutually reachable GPUs, power covers the whole scope.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from types import MappingProxyType

from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation import constants as C
from rackdesigner.simulation.collectives import ALGORITHM_CHOICES, COLLECTIVES, CollectiveModel
from rackdesigner.simulation.fabric import bisection, oversubscription, p2p_max_flow
from rackdesigner.simulation.latency import latency_classes
from rackdesigner.simulation.power import power_report
from rackdesigner.simulation.result import (
    NOTE,
    WARNING,
    BandwidthInfo,
    LatencyInfo,
    Message,
    ScopeInfo,
    SimulationResult,
)
from rackdesigner.simulation.scope import ScopeModel, analyse
from rackdesigner.simulation.topology import Topology

NODE_GROUP_KINDS = ("node", "tray")


class SimulationInputError(ValueError):
    """A scope, GPU pair, algorithm or PUE the layout cannot take (the message says why)."""


def simulate(layout: Layout, scope: str | Iterable[str] | None = None, *,
             algorithm: str = "auto", pue: float | None = None,
             p2p: tuple[str, str] | None = None) -> SimulationResult:
    """Predict bandwidth, collectives, latency and power of `layout` (see docs/simulation.md)."""
    if algorithm not in ALGORITHM_CHOICES:
        raise SimulationInputError(f"unknown algorithm {algorithm!r} "
                                   f"(choose from {', '.join(ALGORITHM_CHOICES)})")
    pue = C.DEFAULT_PUE if pue is None else float(pue)
    if not (pue >= 1.0 and pue < 10.0):
        raise SimulationInputError(f"PUE must be between 1 and 10, got {pue:g}")
    topo = Topology.build(layout)
    messages: list[Message] = []

    def warn(code: str, text: str) -> None:  # the design has a problem / a part is left out
        messages.append(Message(code, WARNING, text))

    def note(code: str, text: str) -> None:  # how a figure was obtained
        messages.append(Message(code, NOTE, text))

    if topo.unknown_models:
        warn("unknown_models", "devices of unknown models are left out: "
             + ", ".join(sorted(topo.unknown_models)))
    gpus, power_devices, label = _resolve_scope(layout, topo, scope)
    if not gpus:
        warn("no_gpus", f"{label} has no GPUs: only power is reported")
    # largest set of mutually reachable GPUs: the same finding as the design rules'
    reach = layout.index().reachability(gpus)
    reachable = list(reach.reachable)
    if reach.partitioned:
        warn("unreachable_gpus",
             f"{reach.describe()}: collectives, bisection and latency cover the largest "
             f"reachable group of {len(reachable)} GPUs")
    model = analyse(topo, reachable)
    info = _scope_info(layout, topo, gpus, model, label)
    if p2p is not None:
        a, b = p2p
        for g in (a, b):
            if g not in topo.kind or topo.kind[g] != "gpu":
                raise SimulationInputError(f"{g!r} is not a GPU of this layout")
        if topo.component_of[a] != topo.component_of[b]:
            warn("p2p_unreachable", f"GPUs {a} and {b} cannot reach each other: P2P "
                 "bandwidth is 0")
    elif len(reachable) >= 2:
        a, b = reachable[0], reachable[-1]
    else:
        a = b = None
    p2p_raw = 0.0
    if a is not None and b is not None and topo.component_of[a] == topo.component_of[b]:
        p2p_raw = p2p_max_flow(topo, a, b)
    classes, missing = latency_classes(topo, model)
    # the network step of NCCL's model already holds its hwLat NET; add only the published
    # (physical) part of the layout's own path, never the model fallback figure
    net = [c for c in classes if c.link_class == "net" and c.physical_us is not None]
    lat_inter = (sum(c.physical_us * c.pairs for c in net) / sum(c.pairs for c in net)
                 if net else 0.0)
    p2p_eff, same_island = _p2p_eff(topo, model, a, b)
    coll = CollectiveModel(model, lat_inter, topo.cpu_vendor, p2p_eff, same_island, algorithm)
    curves = {name: tuple(coll.sweep(name)) for name in (*COLLECTIVES, "send_recv")}
    for text in dict.fromkeys(coll.messages):  # a forced algorithm that cannot run here
        warn("algorithm_unavailable", text)
    if model.n_islands > 1 and any(p.algorithm in ("collnet_direct", "nvls") for pts in
                                   curves.values() for p in pts):
        note("sharp_assumed", "in-network reduction across nodes (SHARP) is counted: NCCL uses "
             "it only with NCCL_COLLNET_ENABLE=1 and the SHARP plugin; "
             "--algorithm ring or nvls_tree shows the figures without it")
    modelled = [c for c in classes if c.source == "model"]
    if modelled:
        figures = ", ".join(f"{k} {C.MODEL_LATENCY_US[k]:g} us" for k in dict.fromkeys(
            c.link_class for c in modelled))
        note(
            "model_latency",
            "GPU-to-GPU latency of " + ", ".join(c.name for c in modelled)
            + f" uses NCCL's per-step model figure ({figures}; hwLat ring LL) instead of "
            "device figures, because these have no published latency: "
            + ", ".join(sorted(missing)))
    over, worst = oversubscription(topo, model)
    bandwidth = BandwidthInfo(
        per_gpu_scale_up_GBps=min((_nvlink_raw(topo, g) for g in reachable), default=0.0),
        per_gpu_scale_out_GBps=min((_nic_share(topo, g)[0] for g in reachable), default=0.0),
        bisection_GBps=bisection(topo, model),
        oversubscription=MappingProxyType(over),
        oversubscription_worst=MappingProxyType(worst),
        fabric_factor=model.fabric_factor,
        p2p=MappingProxyType({"a": a, "b": b, "GBps": p2p_raw}),
    )
    timed = [c for c in classes if c.latency_us is not None]
    pairs = sum(c.pairs for c in timed)
    latency = LatencyInfo(
        min_us=min((c.latency_us for c in timed), default=None),
        mean_us=(sum(c.latency_us * c.pairs for c in timed) / pairs) if pairs else None,
        max_us=max((c.latency_us for c in timed), default=None),
        max_hops=max((c.hops for c in classes), default=0),
        histogram=tuple(classes),
        collective_small_us=MappingProxyType(
            {name: pts[0].time_us for name, pts in curves.items() if pts}),
        missing_data=tuple(sorted(missing)),
    )
    power = power_report(layout, topo, power_devices, pue)
    if not power.complete:
        warn("power_incomplete", f"power total is a lower bound ({power.headline}): no power "
             f"figure in the catalog for {', '.join(power.without_power)}")
    if power.estimated:
        note("power_estimates", "power includes labelled estimates (no published figure) for: "
             + ", ".join(power.estimated))
    for rack, info_w in power.by_rack.items():
        budget = info_w.get("budget_w")
        if info_w.get("over_budget", bool(budget) and info_w.get("max_w", 0.0) > budget):
            warn("rack_over_budget", f"{rack} draws up to {info_w['max_w'] / 1000:,.1f} kW, over "
                 f"its {budget / 1000:,.1f} kW power budget")
    return SimulationResult(info, bandwidth, MappingProxyType(curves), latency, power,
                            tuple(m.text for m in messages), algorithm, tuple(messages))


def _resolve_scope(layout: Layout, topo: Topology, scope) -> tuple[list[str], set | None, str]:
    if scope is None:
        return list(topo.gpus), None, "the layout"
    if isinstance(scope, str):
        group = _find_group(layout, scope)
        members = set(layout.group_devices(group))
        gpus = sorted((d for d in members if topo.kind.get(d) == "gpu"), key=natural_key)
        return gpus, members, f"group {scope}"
    ids = list(dict.fromkeys(scope))
    for g in ids:
        if not layout.has_device(g):
            raise SimulationInputError(f"no device {g!r} in this layout")
        if topo.kind.get(g) != "gpu":
            raise SimulationInputError(f"device {g!r} is not a GPU")
    return sorted(ids, key=natural_key), None, f"{len(ids)} selected GPUs"


def _find_group(layout: Layout, name: str) -> str:
    if layout.has_group(name):
        return name
    matches = [g.id for g in layout.groups() if g.name == name]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise SimulationInputError(f"several groups are named {name!r}: "
                                   + ", ".join(sorted(matches)) + " (use an id)")
    import difflib

    names = [g.id for g in layout.groups()] + [g.name for g in layout.groups() if g.name]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise SimulationInputError(f"no group {name!r} in this layout{hint}")


def _scope_info(layout: Layout, topo: Topology, gpus: list[str], model: ScopeModel,
                label: str) -> ScopeInfo:
    domains = Counter(topo.nvlink_domain_of[g] for g in gpus)
    nodes = set()
    for g in gpus:
        node = None
        group_id = layout.device(g).group
        while group_id is not None:
            group = layout.group(group_id)
            if group.kind in NODE_GROUP_KINDS:
                node = group_id
                break
            group_id = group.parent
        nodes.add(node or topo.island_of[g])
    return ScopeInfo(gpus=len(gpus), nodes=len(nodes), nvlink_domains=len(domains),
                     largest_nvlink_domain=max(domains.values(), default=0),
                     islands=len({topo.island_of[g] for g in gpus}),
                     reachable_gpus=model.n, label=label)


def _nvlink_raw(topo: Topology, gpu: str) -> float:
    return sum(topo.nvl_sw_raw.get(gpu, {}).values()) + sum(
        topo.nvl_peer_raw.get(gpu, {}).values())


def _nic_share(topo: Topology, gpu: str) -> tuple[float, float]:
    """(raw, NCCL-effective) NIC bandwidth of a GPU: its NICs, shared with their other users."""
    raw = eff = 0.0
    for path in topo.gpu_nics.get(gpu, ()):
        users = len(topo.nic_users.get(path.nic, ())) or 1
        net = topo.nic_raw(path.nic)
        raw += min(net, path.raw) / users
        eff += min(net * C.NET_EFFICIENCY, path.eff) / users
    return raw, eff


def _p2p_eff(topo: Topology, model: ScopeModel, a, b) -> tuple[float, bool]:
    if a is None or b is None or a == b:
        return 0.0, True
    if topo.island_of[a] == topo.island_of[b]:
        sa, sb = topo.nvl_sw_eff.get(a, {}), topo.nvl_sw_eff.get(b, {})
        cap = sum(min(v, sb[s]) for s, v in sa.items() if s in sb)
        cap += topo.nvl_peer_eff.get(a, {}).get(b, 0.0)
        if cap <= 0:
            cap = min(topo.gpu_host_eff.get(a, 0.0), topo.gpu_host_eff.get(b, 0.0))
        return cap, True
    if topo.component_of[a] != topo.component_of[b]:
        return 0.0, False
    ea, eb = _nic_share(topo, a)[1], _nic_share(topo, b)[1]
    return min(ea, eb) * model.fabric_factor, False
