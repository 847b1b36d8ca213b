"""What one fault of a selected part stops, as the GPUs themselves (the canvas highlights them).

`Assessment.part_blast` counts; `blast_radius` names the members, from the same structure
(`Structure.label`, `.domain`, `.joined`): a GPU or NVSwitch stops its NVLink domain (at least
its host node), a CPU, NIC or a cable to a NIC its host node, a leaf the nodes with a NIC on it,
a spine or core switch nothing (bandwidth only). Each answer is one pass over the design's rows
with NumPy masks, never a walk over pairs of GPUs. A selected group (a DGX, a compute tray, a
rack) answers for its part whose fault stops most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rackdesigner.model import Layout
from rackdesigner.reliability.structure import NETWORK_PROTOCOLS, ROLE_CODES, Structure

#: the cause unit a link is counted as when one of its ends is a NIC (library.ROLE_UNITS)
LINK_UNITS = ("nic_link", "nic_optic_link")


@dataclass(frozen=True)
class BlastRadius:
    """The GPUs one fault of `part` stops (`gpus`, device ids) and how (`stops`, `scope`)."""

    part: str
    gpus: tuple[str, ...]
    stops: str  # a STOP_NAMES mode, or "" when no cause is counted on the part
    scope: str  # "NVLink domain GB200 NVL72 1", "node dgx-3", "4 nodes on leaf-1", ""
    causes: tuple[str, ...]  # the library's labels of the causes counted on it
    via: str = ""  # for a group: the part inside it that stops most
    note: str = ""  # why no cause is counted on the part, when there is a reason to say

    @property
    def count(self) -> int:
        return len(self.gpus)

    def sentence(self) -> str:
        """The status line: "A fault here stops 72 GPUs (NVLink domain GB200 NVL72 1)"."""
        if not self.causes:
            return f"{self.part}: {self.note or 'no failure rate is counted on this part'}"
        if not self.gpus:
            return "A fault here stops no GPU: it costs bandwidth only (the job runs on)"
        n = len(self.gpus)
        return f"A fault here stops {n:,} GPU{'s' * (n != 1)} ({self.scope})"


def blast_radius(assessment: Any, layout: Layout, parts: Sequence[str]) -> BlastRadius | None:
    """What one fault of the selected part stops: a device, a group (its part that stops
    most) or a link (a cable to a NIC stops that NIC's node). None unless exactly one part is
    selected or when the part is not in the assessed design."""
    if len(parts) != 1:
        return None
    part = parts[0]
    s: Structure = assessment.structure
    if s.label is None:
        return None
    stops_of = _stops_by_role(assessment.causes)
    if layout.has_device(part):
        return _device(s, layout, part, stops_of, part)
    if layout.has_group(part):
        device = _stops_most(s, layout.group_devices(part), stops_of)
        if device is None:
            return None
        out = _device(s, layout, device, stops_of, part)
        return BlastRadius(part, out.gpus, out.stops, out.scope, out.causes, via=device)
    if layout.has_link(part):
        return _link(assessment, s, layout, part)
    return None


def _stops_most(s: Structure, devices: Sequence[str], stops_of: dict) -> str | None:
    """Of `devices` (a group's), the one whose fault stops most GPUs (a rated part before an
    unrated one): NumPy over their rows, for a whole SuperPOD's group as for a tray."""
    rows = np.fromiter((s.rows[d] for d in devices if d in s.rows), dtype=np.int64)
    if not len(rows):
        return None
    best = np.full(len(rows), -1, dtype=np.int64)
    roles = s.roles[rows]
    for role, modes in stops_of.items():
        code = ROLE_CODES.get(role)
        if code is None:
            continue  # node and link units: counted through a device of the node
        mine = roles == code
        for mode in modes:
            best = np.where(mine, np.maximum(best, s.stops[mode][rows]), best)
    return s.ids[int(rows[int(np.argmax(best))])]


def _stops_by_role(causes: Sequence[Any]) -> dict[str, dict[str, list[str]]]:
    """role -> {stop mode: labels of the causes counted per that role}."""
    out: dict[str, dict[str, list[str]]] = {}
    for c in causes:
        out.setdefault(c.per, {}).setdefault(c.stops, []).append(c.label)
    return out


def _device(s: Structure, layout: Layout, device: str, stops_of: dict, part: str
            ) -> BlastRadius:
    role = s.role_of(device)
    modes = stops_of.get(role or "", {})
    causes = tuple(label for labels in modes.values() for label in labels)
    if not modes:
        return BlastRadius(part, (), "", "", causes)
    mode = max(modes, key=lambda m: s.stopped_by(device, m))
    rows, scope = members(s, s.rows[device], mode, role == "switch")
    gpus = tuple(s.ids[r] for r in rows)
    if scope == "attached":
        nodes = len(np.unique(s.label[rows]))
        scope = f"{nodes:,} node{'s' * (nodes != 1)} on {_name(layout, device)}"
    elif gpus:
        scope = f"{scope} {common_group(layout, gpus)}"
    return BlastRadius(part, gpus, mode, scope if gpus else "", causes)


def members(s: Structure, row: int, mode: str, is_switch: bool) -> tuple[np.ndarray, str]:
    """Rows of the GPUs one fault of the part at `row` stops in `mode` (a STOP_NAMES), and
    what they are ("NVLink domain", "node" or "attached"). The same rule as the counts:
    an NVLink domain, or the host node when that is larger."""
    gpu = np.flatnonzero(s.roles == ROLE_CODES["gpu"])
    node = gpu[s.label[gpu] == s.label[row]]
    if mode == "nvlink_domain":
        domain = gpu[s.domain[gpu] == s.domain[row]]
        if len(domain) >= len(node) and len(domain):
            return domain, "NVLink domain"
        return node, "node"
    if mode == "attached_nodes" and is_switch:
        n = max(len(s.ids), 1)
        joined = s.joined if s.joined is not None else np.zeros(0, dtype=np.int64)
        labels = joined[joined // n == row] % n
        return gpu[np.isin(s.label[gpu], labels)], "attached"
    return node, "node"


def _link(assessment: Any, s: Structure, layout: Layout, link_id: str) -> BlastRadius:
    link = layout.link(link_id)
    if layout.index().protocol(link) not in NETWORK_PROTOCOLS:
        return BlastRadius(link_id, (), "", "", (), note="an NVLink or host link: its faults "
                           "are counted with the GPU's (as Llama 3's 'Faulty GPU' counts NVLink)")
    labels = tuple(c.label for c in assessment.causes if c.per in LINK_UNITS)
    for end in (link.a.device, link.b.device):
        row = s.rows.get(end)
        if row is not None and int(s.roles[row]) == ROLE_CODES["nic"] and labels:
            rows, scope = members(s, row, "node", False)
            gpus = tuple(s.ids[r] for r in rows)
            return BlastRadius(link_id, gpus, "node", f"{scope} {common_group(layout, gpus)}"
                               if gpus else "", labels)
    return BlastRadius(link_id, (), "", "", (), note="a link between switches: its fault stops "
                       "no GPU, it costs bandwidth only (the library's cable and optics rates "
                       "are per NIC link)")


def common_group(layout: Layout, devices: Sequence[str]) -> str:
    """The name of the innermost group holding every one of `devices` (a rack, a DGX), or
    their count of racks when no group holds them all."""
    common: list[str] | None = None
    for d in devices:
        chain = []
        g = layout.device(d).group
        while g is not None and layout.has_group(g):
            chain.append(g)
            g = layout.group(g).parent
        common = chain if common is None else [g for g in common if g in set(chain)]
        if not common:
            break
    if common:
        return _name(layout, common[0])
    racks = {layout.device(d).rack for d in devices}
    return f"across {len(racks):,} racks"


def _name(layout: Layout, object_id: str) -> str:
    if layout.has_group(object_id):
        group = layout.group(object_id)
        return group.name or group.id
    return object_id


__all__ = ["BlastRadius", "blast_radius", "common_group", "members"]
