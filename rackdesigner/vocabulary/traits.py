"""What a device kind does: the traits every engine reads instead of the kind's name.

A kind's name says what to call it; its traits say how it behaves. The simulation's fabric, the
index's reachability, the rules, what-if's candidates, the generators, bulk wiring, the exports,
the bill of materials, cost and power ask these, so a kind registered as data alone (an optical
circuit switch with role `switch`, a twin of a shipped kind under a new name) behaves as its
traits say, and a test (tests/test_kind_traits.py) fails when code outside this package compares
a kind's name.

- `computes`: runs the ranks of a job (a GPU): what collectives, placement and scope count;
- `hosts`: the host processor of a server (a CPU): its vendor picks NCCL's PCIe figures;
- `forwards`: takes traffic in at one port and sends it out at another (a switch) — of the
  fabric it serves;
- `terminates`: an end of its fabric's traffic (a NIC or DPU, a storage system);
- `passes`: passes traffic through unchanged (a patch panel): no shipped kind has it, and no
  engine yet joins the two links through such a device (it joins nothing);
- `contains`: holds other devices — "units" (a rack: its rack units), "parts" (a system: its
  parts), "frame" (a chassis: a system's frame, which draws its parts' shared power);
- `draws_power`: has a power draw of its own (a container's parts draw, not the container);
- `cools`: removes heat from racks (a CDU: its kind's facts give `cooling_kw`);
- `media`: a property of links rather than a device — "cable" or "optics" (transceivers);
- `fabric`: which fabric it serves — "scale_up" (NVLink), "host" (PCIe inside a server),
  "compute" (the scale-out network collectives use), "storage", "management" (out of band).
  Only the network links the simulation's fabric carries join GPUs (`joins_compute`: an
  endpoint to a compute-fabric switch, or two such switches); GPUs that reach each other only
  over a storage or management fabric (or NICs cabled back to back) cannot run collectives,
  and the index, the rules and the simulation say so.

A kind's traits follow from its role (`ROLE_TRAITS`) and its table flags unless it declares its
own; `Traits()` (nothing) is what an unknown model has.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

#: The fabrics a kind can serve, from inside a node outwards.
FABRICS = ("scale_up", "host", "compute", "storage", "management")
#: Fabrics whose network links carry no collective traffic between GPUs.
SIDE_FABRICS = ("storage", "management")
#: What `contains` may say.
CONTAINS = ("units", "parts", "frame")
#: What `media` may say.
MEDIA = ("cable", "optics")


@dataclass(frozen=True, slots=True)
class Traits:
    """What a device of a kind does (module docstring)."""

    computes: bool = False
    hosts: bool = False
    forwards: bool = False
    terminates: bool = False
    passes: bool = False
    contains: str | None = None
    draws_power: bool = True
    cools: bool = False
    media: str | None = None
    fabric: str | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (("fabric", self.fabric, FABRICS),
                                     ("contains", self.contains, CONTAINS),
                                     ("media", self.media, MEDIA)):
            if value is not None and value not in allowed:
                raise ValueError(f"unknown {name} {value!r} (expected one of "
                                 f"{', '.join(allowed)})")

    @property
    def fabric_switch(self) -> bool:
        """A switch of the compute fabric: the simulation's leaves and spines, what-if's
        switches, the exports' switches."""
        return self.forwards and self.fabric == "compute"

    @property
    def endpoint(self) -> bool:
        """A compute-fabric endpoint of a server (NIC, DPU): where GPUs enter the network."""
        return self.terminates and self.fabric == "compute"

    @property
    def nvlink_switch(self) -> bool:
        """A switch of the scale-up (NVLink) fabric."""
        return self.forwards and self.fabric == "scale_up"

    @property
    def container(self) -> bool:
        """Holds other devices (a rack, a system): takes no rack units and draws no power
        itself — its contents do."""
        return self.contains in ("units", "parts")

    @property
    def side_fabric(self) -> bool:
        """Serves the storage or management fabric (its network links join no GPUs)."""
        return self.fabric in SIDE_FABRICS


NO_TRAITS = Traits()

#: The traits a kind of each role has unless its entry declares its own (`contains`, `cools`
#: and `draws_power` come from the entry's flags and facts, `kinds.Kind.__post_init__`).
ROLE_TRAITS: MappingProxyType[str, Traits] = MappingProxyType({
    "gpu": Traits(computes=True),
    "cpu": Traits(hosts=True),
    "nvswitch": Traits(forwards=True, fabric="scale_up"),
    "switch": Traits(forwards=True, fabric="compute"),
    "nic": Traits(terminates=True, fabric="compute"),
    "pcie_switch": Traits(forwards=True, fabric="host"),
    "storage": Traits(terminates=True, fabric="storage"),
    "management": Traits(forwards=True, fabric="management"),
    "facility": Traits(),
    "enclosure": Traits(),
    "media": Traits(),
})


def joins_compute(a: Traits, b: Traits) -> bool:
    """Whether a network link between devices of these traits is part of the compute fabric
    (the components GPUs reach each other in, the fabric the simulation routes over): a link
    from an endpoint (NIC, DPU) to a compute-fabric switch, or between two such switches — not
    one that touches a storage or management device, nor two endpoints cabled back to back."""
    if a.fabric_switch:
        return b.fabric_switch or b.endpoint
    return a.endpoint and b.fabric_switch
