"""The values the design index hands out (`index.py`): which links carry a protocol
(`CarriedLink`), who is joined to whom (`Connectivity`), which GPUs reach each other
(`Reachability`), the disjoint sets they are computed with (`UnionFind`), and the protocol
families the index sorts links by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rackdesigner import vocabulary
from rackdesigner.catalog import PortGroup
from rackdesigner.model.items import Link

NVLINK = "nvlink"
HOST_PROTOCOLS = vocabulary.protocols_of("host")
NETWORK_PROTOCOLS = vocabulary.protocols_of("network")


class UnionFind:
    """Disjoint sets of device ids (islands, NVLink domains, components)."""


    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        root = x
        while (p := parent.get(root, root)) != root:
            root = p
        while x != root:  # path compression
            x, parent[x] = parent.get(x, x), root
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


class CarriedLink(NamedTuple):
    """A link whose two ends agree on a protocol, with both port groups."""

    link: Link
    a: PortGroup
    b: PortGroup
    protocol: str


@dataclass(frozen=True)
class Connectivity:
    """Who is joined to whom. Roots are device ids (stable within one index)."""

    island_of: dict[str, str]  # device -> island root (NVLink + host links: a node, a rack)
    nvlink_domain_of: dict[str, str]  # device -> NVLink root
    component_of: dict[str, str]  # device -> connected component (islands + network links)
    gpus: tuple[str, ...]  # GPU ids in natural order (gpu-2 before gpu-10)


@dataclass(frozen=True)
class Reachability:
    """GPUs split into groups that cannot reach each other; `reachable` is the largest group."""

    gpus: tuple[str, ...]
    groups: int
    reachable: tuple[str, ...]
    unreachable: tuple[str, ...]
    #: fabrics that carry no collectives (storage, management) over which some unreachable
    #: GPUs are joined to the reachable ones: the design looks connected but is not
    side_fabrics: tuple[str, ...] = ()

    @property
    def partitioned(self) -> bool:
        return self.groups > 1

    def headline(self) -> str:
        """The sentence's short form, for the status bar: "8 of 16 GPUs cannot reach the
        others"."""
        return f"{len(self.unreachable)} of {len(self.gpus)} GPUs cannot reach the others"

    def describe(self) -> str:
        """The one sentence Problems, the status bar's tip and the panel all show."""
        side = ""
        if self.side_fabrics:
            side = (f"; they are joined only over the {' and '.join(self.side_fabrics)} "
                    f"fabric, which carries no collectives")
        return (f"{self.headline()} ({self.groups} disconnected groups{side}; check NIC and "
                f"switch links)")
