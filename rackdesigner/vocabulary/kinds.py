"""Device kinds: what each catalog `kind:` is, for every layer that treats kinds differently.

One `Kind` per kind, in bill-of-materials order. A kind says
- where it sits in the Palette (`palette`; a fabric switch goes to its protocol's
  `switch_section` instead, see `protocols.py`), its canvas colour and badge;
- its `role`: what the simulation and the design rules make of it (`ROLES`);
- `container`: a rack or a system holds other devices — it draws no power of its own and takes
  no rack units itself (its parts do);
- `side_mount`: a 0U device placed in a rack goes in the rack's side channel, upright at the
  rear as real racks mount vertical PDUs: the Racks view draws it as a strip beside the rear
  elevation and it takes no rack unit;
- `power`: the live panel's power category its draw is stacked in;
- `block`: the facts block its catalog files must carry (`gpu:`, `rack:`…), and `facts`: for a
  kind without a typed block of its own, the fields of that block (`cdu: {cooling_kw: …}`),
  which the loader validates and `DeviceSpec.fact()` reads;
- `traits`: what it does (`traits.py`) — what every engine reads, never the kind's name; made
  from its role and the flags above unless the entry gives its own.

Adding a kind is its catalog files plus one entry here; `tests/test_vocabulary.py` checks the
tables against the shipped catalog and against what reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType

from rackdesigner.vocabulary._table import entry
from rackdesigner.vocabulary.traits import NO_TRAITS, ROLE_TRAITS, Traits

#: What a kind is to the simulation and the rules.
#: gpu, cpu, nvswitch (NVLink switch chip), switch (scale-out fabric switch), nic (fabric
#: endpoint of a server: NIC or DPU), pcie_switch (host fabric inside a server), storage (a
#: fabric endpoint that serves data, outside the collectives), management (out-of-band network,
#: carries no training traffic), facility (power and cooling: PDUs, CDUs), enclosure (racks,
#: systems, chassis), media (cables, transceivers: properties of links).
ROLES = ("gpu", "cpu", "nvswitch", "switch", "nic", "pcie_switch", "storage", "management",
         "facility", "enclosure", "media")

#: Palette sections, top to bottom (a switch's section comes from its protocols).
PALETTE_SECTIONS = ("Systems", "GPUs", "NVLink switching", "InfiniBand", "Ethernet",
                    "NICs & DPUs", "CPUs & PCIe", "Storage", "Management", "Power & cooling",
                    "Racks")

#: Power categories of the live panel's stacked bars (bottom to top).
POWER_CATEGORIES = ("gpu", "system", "switch", "network", "optics", "other")


@dataclass(frozen=True, slots=True)
class Fact:
    """One field of a kind's own facts block: `number` (finite, >= 0), `count` (whole >= 1)
    or `text`."""

    name: str
    type: str
    required: bool = True
    help: str = ""
    #: how the Palette shows it in a model's one-line figures ("" = not shown)
    figure: str = ""


@dataclass(frozen=True, slots=True)
class Kind:
    name: str  # the catalog's `kind:` value
    label: str  # "GPU"; plural `plural`
    plural: str
    badge: str  # the canvas badge (the kind's icon)
    color: str | None  # canvas accent, Palette chip, Racks view unit (None: never drawn alone)
    palette: str | None  # Palette section (None: not placed alone: cables, chassis…)
    role: str  # one of ROLES
    power: str  # one of POWER_CATEGORIES
    id_prefix: str  # readable ids of placed devices: `gpu-3`, `nvsw-1`
    container: bool = False
    side_mount: bool = False
    block: str | None = None  # a typed facts block the catalog file must carry
    facts: tuple[Fact, ...] = ()
    #: sits on a cold plate in a liquid-cooled system: its heat goes to liquid there (the
    #: parts MLCommons' GB200 NVL72 system descriptions list as liquid-cooled: "CPU, GPU, CX7,
    #: NVLink Switches", and switch ASICs; model/cooling.py cites it)
    cold_plate: bool = False
    #: what it does (None: from its role and flags, `traits.ROLE_TRAITS`)
    traits: Traits = None  # type: ignore[assignment]  # filled in by __post_init__

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"kind {self.name!r}: unknown role {self.role!r} (expected one "
                             f"of {', '.join(ROLES)})")
        if self.traits is None:
            object.__setattr__(self, "traits", _traits_of_entry(self))


def _traits_of_entry(k: Kind) -> Traits:
    """The traits of an entry that declares none: its role's, with what its flags, block and
    facts say (a container holds units or parts and draws nothing itself; a kind whose facts
    give a cooling capacity cools; an enclosure that is not a container is a frame; a media
    kind is a cable or optics by its block)."""
    import dataclasses

    base = ROLE_TRAITS[k.role]
    contains = base.contains
    if k.container:
        contains = "units" if k.block == "rack" else "parts"
    elif k.role == "enclosure":
        contains = "frame"
    media = base.media
    if k.role == "media":
        media = "optics" if k.block == "transceiver" else "cable"
    return dataclasses.replace(base, contains=contains, draws_power=not k.container,
                               cools=any(f.name == "cooling_kw" for f in k.facts),
                               media=media)


KINDS: MappingProxyType[str, Kind] = MappingProxyType({k.name: k for k in (
    Kind("system", "system", "systems", "SYS", "#16a085", "Systems", "enclosure", "other",
         "system", container=True, block="system"),
    Kind("rack", "rack", "racks", "RACK", "#2c3e50", "Racks", "enclosure", "other", "rack",
         container=True, block="rack"),
    Kind("switch", "switch", "switches", "SW", "#1f6fd1", "Ethernet", "switch", "switch",
         "switch", cold_plate=True),
    Kind("storage_switch", "storage switch", "storage switches", "SSW", "#9a7d0a", "Storage",
         "switch", "switch", "ssw", cold_plate=True,
         # a switch of the storage fabric: forwards, but joins no GPUs (traits.py)
         traits=Traits(forwards=True, fabric="storage")),
    Kind("mgmt_switch", "management switch", "management switches", "MGMT", "#5d6d7e",
         "Management", "management", "switch", "mgmt"),
    Kind("storage", "storage system", "storage systems", "STOR", "#b7950b", "Storage",
         "storage", "other", "storage",
         facts=(Fact("read_GBps", "number", help="sequential read throughput, GB/s",
                     figure="{:g} GB/s read"),
                Fact("write_GBps", "number", help="sequential write throughput, GB/s"),
                Fact("source", "text"))),
    Kind("gpu", "GPU", "GPUs", "GPU", "#76b900", "GPUs", "gpu", "gpu", "gpu", block="gpu",
         cold_plate=True),
    Kind("cpu", "CPU", "CPUs", "CPU", "#34495e", "CPUs & PCIe", "cpu", "system", "cpu",
         cold_plate=True),
    Kind("nvswitch", "NVSwitch", "NVSwitches", "NVS", "#8e44ad", "NVLink switching",
         "nvswitch", "switch", "nvsw", cold_plate=True),
    Kind("nic", "NIC", "NICs", "NIC", "#e07b16", "NICs & DPUs", "nic", "network", "nic",
         cold_plate=True),
    Kind("dpu", "DPU", "DPUs", "DPU", "#d35400", "NICs & DPUs", "nic", "network", "dpu"),
    Kind("pcie_switch", "PCIe switch", "PCIe switches", "PCIe", "#7b8794", "CPUs & PCIe",
         "pcie_switch", "system", "pcisw"),
    Kind("chassis", "chassis", "chassis", "CHS", "#95a5a6", None, "enclosure", "system",
         "chassis"),
    Kind("pdu", "PDU", "PDUs", "PDU", "#a04000", "Power & cooling", "facility", "other", "pdu",
         side_mount=True, facts=(Fact("capacity_kw", "number", help="power the PDU can deliver, kW",
                     figure="{:g} kW"),
                Fact("voltage_v", "number", required=False, help="input voltage, V"),
                Fact("current_a", "number", required=False,
                     help="rated input current per phase, A"),
                Fact("phases", "count", required=False),
                Fact("outlets", "count", required=False),
                Fact("source", "text"))),
    Kind("cdu", "CDU", "CDUs", "CDU", "#2874a6", "Power & cooling", "facility", "other", "cdu",
         facts=(Fact("cooling_kw", "number", help="heat the CDU removes at its rating, kW",
                     figure="{:g} kW cooling"),
                Fact("rated_at_c", "number", required=False,
                     help="coolant temperature of that rating, °C"),
                Fact("placement", "text", required=False,
                     help="in-rack (serves its own rack) or in-row (serves racks of its row)"),
                Fact("source", "text"))),
    Kind("rdhx", "rear-door heat exchanger", "rear-door heat exchangers", "RDHX", "#1a5276",
         "Power & cooling", "facility", "other", "rdhx", side_mount=True,
         facts=(Fact("air_kw", "number",
                     help="heat the door takes from its rack's exhaust air into water, kW",
                     figure="{:g} kW from air"),
                Fact("source", "text"))),
    Kind("cable", "cable", "cables", "CBL", None, None, "media", "optics", "cable",
         block="cable"),
    Kind("transceiver", "transceiver", "transceivers", "XCVR", None, None, "media", "optics",
         "xcvr", block="transceiver"),
)})
KIND_NAMES: tuple[str, ...] = tuple(KINDS)
#: The fact of a kind that cools racks (a CDU's `cdu: {cooling_kw: …}`): a device of a kind whose
#: facts give it serves the racks it lists (`serves:`) with that capacity (model/cooling.py).
COOLING_FACT = "cooling_kw"
COOLING_KINDS: frozenset[str] = frozenset(k.name for k in KINDS.values() if k.traits.cools)
#: The fact of a kind that takes heat from its rack's exhaust air into water (a rear-door heat
#: exchanger's `rdhx: {air_kw: …}`): the room's air load falls by it (model/cooling.py).
AIR_COOLING_FACT = "air_kw"
#: The `placement` of a CDU that stands in the row and serves several racks of it.
IN_ROW = "in-row"


class RegistrationError(ValueError):
    """A table entry an installed package (a plugin) adds, refused at registration: the
    message names the plugin and what was wrong."""


def register_kinds(entries: Iterable[object], source: str) -> tuple[str, ...]:
    """Add the kinds `entries` (each a `Kind`) that plugin `source` declares to the table
    (`KINDS` here and in the package), refusing the whole set — naming `source` — when an entry
    is not a `Kind`, its name is taken, or its palette section, power category or facts block
    is unknown (an unknown role or trait value is refused when the `Kind` is made). The names
    registered."""
    global KINDS, KIND_NAMES, COOLING_KINDS
    new: dict[str, Kind] = {}
    blocks = {k.block for k in KINDS.values()}
    for e in entries:
        if not isinstance(e, Kind):
            raise RegistrationError(f"plugin {source}: a kind must be a "
                                    f"rackdesigner.vocabulary.Kind, got {type(e).__name__}")
        where = f"plugin {source}: kind {e.name!r}"
        if e.name in KINDS or e.name in new:
            raise RegistrationError(f"{where} is already registered")
        if not isinstance(e.traits, Traits):
            raise RegistrationError(f"{where}: traits must be a vocabulary.Traits")
        if e.palette is not None and e.palette not in PALETTE_SECTIONS:
            raise RegistrationError(f"{where}: unknown Palette section {e.palette!r} "
                                    f"(expected one of {', '.join(PALETTE_SECTIONS)})")
        if e.power not in POWER_CATEGORIES:
            raise RegistrationError(f"{where}: unknown power category {e.power!r} "
                                    f"(expected one of {', '.join(POWER_CATEGORIES)})")
        if e.block is not None and e.block not in blocks:
            raise RegistrationError(f"{where}: unknown facts block {e.block!r} (give the "
                                    f"kind's own fields as `facts`)")
        new[e.name] = e
    KINDS = MappingProxyType({**KINDS, **new})
    KIND_NAMES = tuple(KINDS)
    COOLING_KINDS = frozenset(k.name for k in KINDS.values() if k.traits.cools)
    import rackdesigner.vocabulary as package

    package.KINDS, package.KIND_NAMES, package.COOLING_KINDS = KINDS, KIND_NAMES, COOLING_KINDS
    return tuple(new)


def traits_of(kind_name: str | None) -> Traits:
    """The traits of kind `kind_name` (`Traits()`, nothing, for None or an unknown kind: what
    a device of an unknown model has)."""
    k = KINDS.get(kind_name) if kind_name is not None else None
    return k.traits if k is not None else NO_TRAITS


def kinds_with(test: Callable[[Traits], bool]) -> tuple[str, ...]:
    """The kinds whose traits pass `test`, in table order (`kinds_with(lambda t:
    t.fabric_switch)`)."""
    return tuple(k.name for k in KINDS.values() if test(k.traits))


def fact_figures(kind_name: str, fact: Callable[[str], object]) -> list[str]:
    """A model's own figures as its kind shows them ("22 kW", "90 GB/s read"): each fact of
    the kind with a `figure`, read with `fact(name)` (None: not in the model's data)."""
    entry = KINDS.get(kind_name)
    out = []
    for f in entry.facts if entry is not None else ():
        value = fact(f.name)
        if f.figure and value is not None:
            out.append(f.figure.format(value))
    return out


def kind(name: str) -> Kind:
    """The entry of kind `name`; KeyError naming the known kinds when there is none."""
    return entry(KINDS, name, "device kind")


def palette_section(kind_name: str, protocols: Iterable[str] = ()) -> str | None:
    """The Palette section of a model of `kind_name` with ports of `protocols`: a fabric
    switch's is its first protocol (in the protocol table's order) that names a switch section,
    any other kind's its own `palette` (None: not placed alone)."""
    from rackdesigner.vocabulary.protocols import PROTOCOLS

    entry = KINDS.get(kind_name)
    if entry is None:
        return None
    if entry.traits.fabric_switch:
        present = set(protocols)
        for p in PROTOCOLS.values():
            if p.name in present and p.switch_section:
                return p.switch_section
    return entry.palette


def kinds_with_role(*roles: str) -> tuple[str, ...]:
    """The kinds playing any of `roles`, in table order (`kinds_with_role("nic")` ->
    ("nic", "dpu"))."""
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise KeyError(f"unknown {'role' if len(unknown) == 1 else 'roles'} {', '.join(unknown)} "
                       f"(expected {', '.join(ROLES)})")
    return tuple(k.name for k in KINDS.values() if k.role in roles)
