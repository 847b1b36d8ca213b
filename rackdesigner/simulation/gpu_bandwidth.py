"""Bandwidth of one GPU's own paths, read off the topology: its NVLink (raw), its share of its
NICs (raw and NCCL-effective) and the point-to-point rate between two GPUs with the NICs a
send/recv pair uses (`simulate`'s sendrecv figure)."""

from __future__ import annotations

from rackdesigner.simulation import constants as C
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.simulation.topology import Topology


def p2p_nics(topo: Topology, a: str | None, b: str | None) -> tuple[str | None, str | None]:
    """NICs of a send/recv pair: a's own rail NIC, and b's NIC on the same rail (PXN moves the
    data to b's node on a's rail)."""
    if a is None or b is None:
        return None, None
    na = topo.primary_nic.get(a)
    if na is None:
        return None, None
    island_b = topo.islands.get(topo.island_of[b], [])
    rails_b = list(dict.fromkeys(topo.primary_nic[g] for g in island_b if g in topo.primary_nic))
    island_a = topo.islands.get(topo.island_of[a], [])
    rails_a = list(dict.fromkeys(topo.primary_nic[g] for g in island_a if g in topo.primary_nic))
    if not rails_b:
        return na, None
    r = rails_a.index(na) if na in rails_a else 0
    return na, rails_b[r % len(rails_b)]


def nvlink_raw(topo: Topology, gpu: str) -> float:
    return sum(topo.nvl_sw_raw.get(gpu, {}).values()) + sum(
        topo.nvl_peer_raw.get(gpu, {}).values())


def nic_share(topo: Topology, gpu: str) -> tuple[float, float]:
    """(raw, NCCL-effective) NIC bandwidth of a GPU: its NICs, shared with their other users."""
    raw = eff = 0.0
    for path in topo.gpu_nics.get(gpu, ()):
        users = len(topo.nic_users.get(path.nic, ())) or 1
        net = topo.nic_raw(path.nic)
        raw += min(net, path.raw) / users
        eff += min(net * C.NET_EFFICIENCY, path.eff) / users
    return raw, eff


def p2p_eff(topo: Topology, model: ScopeModel, a, b) -> tuple[float, bool]:
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
    ea, eb = nic_share(topo, a)[1], nic_share(topo, b)[1]
    return min(ea, eb) * model.p2p_factor, False
