"""Link heat map: each network link's utilisation under one traffic (a collective at a size).

A question asked of the simulation's link-load stage (`simulate(..., loads_for=...)`, the same
numbers `simulate --link-loads` prints): here they are keyed by link id for drawing, with the
hottest links first. Utilisation is load over capacity at every GPU's full NIC rate for the
collective's traffic pattern (ring, tree, all_to_all, p2p), per direction, the busier one.
Only network links carry routed loads (NIC-leaf, switch-switch); NVLink and host links are
outside the fabric model and have no heat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rackdesigner import vocabulary
from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation import SimulationResult, simulate
from rackdesigner.simulation.loads import LinkLoad

DEFAULT_COLLECTIVE = "all_to_all"
DEFAULT_SIZE = 2**30
HEAT_COLLECTIVES = vocabulary.COLLECTIVE_NAMES


@dataclass(frozen=True)
class HeatMap:
    collective: str
    bytes: int
    algorithm: str | None
    pattern: str | None
    loads: dict[str, LinkLoad] = field(default_factory=dict)  # link id -> load
    #: a training job's heat map (analysis/jobheat.py): its title, the traffic class (TP, DP,
    #: ...) that sets each link's utilisation, and one summary per exchange
    label: str = ""
    link_class: dict[str, str] = field(default_factory=dict)
    exchanges: tuple = ()
    notes: tuple[str, ...] = ()

    @property
    def peak(self) -> float:
        """The highest utilisation (0 when no network link is loaded)."""
        return max((x.utilisation for x in self.loads.values()), default=0.0)

    def utilisation(self, link_id: str) -> float | None:
        load = self.loads.get(link_id)
        return None if load is None else load.utilisation

    def hottest(self, n: int = 20) -> list[LinkLoad]:
        """The `n` most utilised links, hottest first (ties in natural id order)."""
        return sorted(self.loads.values(),
                      key=lambda x: (-round(x.utilisation, 9), natural_key(x.link)))[:n]


def from_result(result: SimulationResult) -> HeatMap | None:
    """The heat map of the link loads a simulation listed (None when it listed none)."""
    info = result.link_loads
    if info is None:
        return None
    return HeatMap(info.collective, info.bytes, info.algorithm, info.pattern,
                   {x.link: x for x in info.entries})


def heat_map(layout: Layout, collective: str = DEFAULT_COLLECTIVE,
             size: int = DEFAULT_SIZE, **options) -> HeatMap:
    """Simulate `layout` and return its link heat map under `collective` at `size` bytes."""
    result = simulate(layout, loads_for=(collective, size), **options)
    heat = from_result(result)
    assert heat is not None
    return heat


def parse_heat(text: str) -> tuple[str, int]:
    """`all_to_all` or `all_to_all:64M` -> (collective, bytes); ValueError says the form."""
    name, _, size = text.partition(":")
    if name not in HEAT_COLLECTIVES:
        raise ValueError(f"unknown collective {name!r} (choose from "
                         f"{', '.join(HEAT_COLLECTIVES)}; e.g. all_to_all:1G)")
    if not size:
        return name, DEFAULT_SIZE
    units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
    t = size.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in units else ""
    number = t[: len(t) - len(unit)]
    if not number.isdigit() or int(number) <= 0:
        raise ValueError(f"expected COLLECTIVE[:SIZE] with SIZE a whole number of "
                         f"bytes and an optional K, M or G (e.g. all_to_all:64M), got {text!r}")
    return name, int(number) * units[unit]
