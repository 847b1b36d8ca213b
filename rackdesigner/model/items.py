"""The plain values a layout is made of: devices, links, groups and port references.

All are frozen; changing one means replacing it through a `Layout` mutator. Ids are persistent,
readable strings (`gpu-12`, `link-40`); geometry is tuples of floats.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any

#: The characters of an id, and an id: a letter or digit first (the file readers, the importers
#: that make ids from other tools' names and the fast reader's line patterns all build on these).
ID_CHARS = r"A-Za-z0-9_.\-"
ID_TEXT = rf"[A-Za-z0-9][{ID_CHARS}]*"
ID_PATTERN = re.compile(ID_TEXT)
_PORT_PATTERN = re.compile(r"^(?P<group>[A-Za-z][\w\-]*?)(?:\.(?P<index>\d+))?$")

_PORT_FORM = "expected 'device:port' (e.g. gpu-1:nvlink or leaf-1:ib.3)"
GROUP_KINDS = ("node", "tray", "rack", "su", "pod", "fabric", "group")
#: What a device, link or group can be: `failed` keeps it drawn but out of the simulation
#: (a what-if scenario, analysis/failures.py); files write the status only when failed.
ACTIVE = "active"
FAILED = "failed"
STATUSES = (ACTIVE, FAILED)


#: Bounds every document keeps (the file reader refuses the same): a bundle of at most a
#: million cables, rack units 1..9999, and coordinates that are finite numbers (a NaN or an
#: infinity reaching the canvas made every repaint raise and, in the minimap, crashed Qt).
MAX_LINK_COUNT = 10**6
MAX_U = 9999
#: Coordinates past this are no drawing (the canvas segfaulted on two devices at ±1.7e308: the
#: scene's width overflowed to infinity). 1e150 keeps every sum, difference and square the views
#: compute finite, and every file saved so far loads (a golden file holds 1e20).
MAX_COORD = 1e150
#: A site's power or cooling in kW (model assumptions): from 1 W, below which a percentage of
#: it printed hundreds of digits (1e-300 kW), to 10 GW, beyond any site (1e306 kW validated).
SITE_KW_MIN = 0.001
SITE_KW_MAX = 10_000_000.0
#: A rack's own power budget or air-cooling limit in W (model assumptions): from 1 W, below
#: which its load printed as a 300-digit percentage (1e-300 W), to 100 MW, far above any rack
#: (an NVL72 draws about 130 kW).
RACK_W_MIN = 1.0
RACK_W_MAX = 100_000_000.0


def is_valid_id(value: object) -> bool:
    """The id syntax of every object, matched in full (`re.match` with `$` would also accept a
    final "\\n"); the mutators and the file readers all check ids with this one function."""
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def finite(value: object) -> float | None:
    """A number as a finite float, or None (text, true/false, NaN, an infinity, an int too
    large for a float)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def coordinate(value: object) -> float | None:
    """A coordinate as a finite float within ±MAX_COORD, or None."""
    number = finite(value)
    return number if number is not None and abs(number) <= MAX_COORD else None


def position(value: object) -> tuple[float, float] | None:
    """`[x, y]` / `(x, y)` as two coordinates, or None: what a device's `pos` may be."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        return None
    x, y = coordinate(value[0]), coordinate(value[1])
    return None if x is None or y is None else (x, y)


def rack_unit_ok(u: object) -> bool:
    """A device's rack unit: none, or a whole number 1..MAX_U."""
    return u is None or (not isinstance(u, bool) and isinstance(u, int) and 0 < u <= MAX_U)


def link_count_ok(count: object) -> bool:
    """A link's count of cables: a whole number 1..MAX_LINK_COUNT."""
    return (not isinstance(count, bool) and isinstance(count, numbers.Integral)
            and 1 <= int(count) <= MAX_LINK_COUNT)


def length_ok(length: object) -> bool:
    """A link's length: none, or a finite number of metres >= 0."""
    return length is None or ((metres := finite(length)) is not None and metres >= 0)


# The one validation of an object's values: the mutators, `Layout.add_all` and the file readers
# (which word the same decisions with the file's keys and lines) all decide with the functions
# above, so a document can hold nothing one of them would refuse.
def device_problem(device: Device) -> str | None:
    """Why `device` cannot be in a document (non-finite position, bad rack unit), or None."""
    pos = device.pos
    if position(pos) is None:
        return (f"device {device.id!r}: position must be two finite numbers within "
                f"±{MAX_COORD:g}, got {pos!r}")
    u = device.u
    if not rack_unit_ok(u):
        return f"device {device.id!r}: rack unit must be a whole number 1..{MAX_U}, got {u!r}"
    return None


def link_problem(link: Link) -> str | None:
    """Why `link` cannot be in a document (count, length), or None."""
    count = link.count
    if not link_count_ok(count):
        return (f"link {link.id!r}: count must be a whole number 1..{MAX_LINK_COUNT:,}, got "
                f"{count!r}")
    length = link.length_m
    if not length_ok(length):
        return f"link {link.id!r}: length must be a finite number of metres >= 0, got {length!r}"
    return None


@dataclass(frozen=True, slots=True, order=True)
class PortRef:
    """One end of a link: `device:group` (any free ports of a group) or `device:group.N`.

    With an index, the link uses ports N .. N+count-1 of the group; without one, it uses
    `count` of the group's ports without saying which.
    """

    device: str
    group: str
    index: int | None = None

    @classmethod
    def parse(cls, text: str) -> PortRef:
        """Parse `device:group` or `device:group.N`; ValueError with the expected form."""
        if not isinstance(text, str) or text.count(":") != 1:
            raise ValueError(f"{_PORT_FORM}, got {text!r}")
        device, port = text.split(":")
        m = _PORT_PATTERN.fullmatch(port)
        if not is_valid_id(device) or m is None:
            raise ValueError(f"{_PORT_FORM}, got {text!r}")
        index = m["index"]
        return cls(device, m["group"], None if index is None else int(index))

    @property
    def port(self) -> str:
        return self.group if self.index is None else f"{self.group}.{self.index}"

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"

    def with_device(self, device: str) -> PortRef:
        return PortRef(device, self.group, self.index)


@dataclass(frozen=True, slots=True)
class Device:
    """One instance of a catalog model placed in the design."""

    id: str
    model: str
    name: str = ""
    pos: tuple[float, float] = (0.0, 0.0)
    rack: str | None = None
    u: int | None = None
    group: str | None = None
    props: tuple[tuple[str, Any], ...] = ()
    status: str = ACTIVE

    @property
    def label(self) -> str:
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Link:
    """`count` parallel links between port group `a` and port group `b` (a bundle when > 1)."""

    id: str
    a: PortRef
    b: PortRef
    count: int = 1
    cable: str | None = None
    length_m: float | None = None
    status: str = ACTIVE

    def other(self, device: str) -> PortRef:
        return self.b if self.a.device == device else self.a

    def end(self, device: str) -> PortRef:
        return self.a if self.a.device == device else self.b


@dataclass(frozen=True, slots=True)
class Group:
    """A named set of devices and groups: a node, a rack, a scalable unit, a pod.

    Membership lives on the members (`Device.group`, `Group.parent`), so it cannot disagree.
    """

    id: str
    name: str = ""
    kind: str = "group"
    parent: str | None = None
    collapsed: bool = False
    template: str | None = None
    status: str = ACTIVE

    @property
    def label(self) -> str:
        return self.name or self.id


#: A power-hierarchy level, top down (`PowerNode.level`); a busway stands where a switchboard does.
POWER_LEVELS = ("feed", "switchboard", "busway", "pdu")
#: Redundancy of a power node's units: all carry load (N), one spare (N+1), two full paths (2N).
REDUNDANCIES = ("N", "N+1", "2N")


@dataclass(frozen=True, slots=True)
class PowerNode:
    """One node of a site's power hierarchy (feeds -> switchboards/busways -> floor PDUs ->
    racks): `units` units of `capacity_kw` each, of which `redundancy` leaves some spare;
    `parent` the node above (None for a feed), `racks` the racks a floor PDU feeds."""

    id: str
    level: str
    capacity_kw: float
    units: int = 1
    redundancy: str = "N"
    parent: str | None = None
    racks: tuple[str, ...] = ()

    @property
    def usable_kw(self) -> float:
        """What the node may carry with its redundancy kept: N all units, N+1 all but one,
        2N half of them (each path able to carry the whole load)."""
        if self.redundancy == "N+1":
            return self.capacity_kw * max(0, self.units - 1)
        if self.redundancy == "2N":
            return self.capacity_kw * self.units / 2
        return self.capacity_kw * self.units

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "level": self.level,
                               "capacity_kw": _number(self.capacity_kw)}
        if self.units != 1:
            out["units"] = self.units
        if self.redundancy != "N":
            out["redundancy"] = self.redundancy
        if self.parent is not None:
            out["parent"] = self.parent
        if self.racks:
            out["racks"] = list(self.racks)
        return out


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else float(value)


@dataclass(frozen=True, slots=True)
class Site:
    """The facility a design must fit (file key `site:`, and a `SITE.yaml` file of the same
    form), in kW; None where not stated.

    `power_kw` is the power the site delivers to IT equipment (critical IT load, what a data
    hall's "5 MW" means; file key `power_kw` or `it_power_kw`), checked against the design's
    maximum IT draw; `cooling_kw` is the heat the site removes, checked against the design's
    heat (all IT power ends as heat). `facility_power_kw` is the utility feed: IT x PUE must
    fit it (`pue` when the site states one, else the PUE of the design's cooling mix).
    `liquid_kw` is the liquid loop's capacity (its supply temperature `liquid_supply_c` where a
    vendor states one), `air_kw` the air-cooling capacity, `rack_positions` the floor's rack
    positions, `power` the power hierarchy (`PowerNode`, top down)."""

    power_kw: float | None = None
    cooling_kw: float | None = None
    facility_power_kw: float | None = None
    liquid_kw: float | None = None
    liquid_supply_c: float | None = None
    air_kw: float | None = None
    pue: float | None = None
    rack_positions: int | None = None
    power: tuple[PowerNode, ...] = ()

    @property
    def empty(self) -> bool:
        return all(getattr(self, key) is None for key in SITE_NUMBERS) and not self.power

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in SITE_NUMBERS:
            value = getattr(self, key)
            if value is not None:
                out[key] = _number(value)
        if self.power:
            out["power"] = [node.to_dict() for node in self.power]
        return out


#: The site's number keys, in file order (`Site.to_dict`).
SITE_NUMBERS = ("power_kw", "cooling_kw", "facility_power_kw", "liquid_kw", "liquid_supply_c",
                "air_kw", "pue", "rack_positions")


NO_SITE = Site()


@dataclass(frozen=True, slots=True)
class Meta:
    """Document-level properties."""

    name: str = ""
    description: str = ""
    extra: tuple[tuple[str, Any], ...] = field(default=())
    #: In-network reduction (NVLS across nodes, CollNet/SHARP) is available to NCCL: the user
    #: runs the SHARP plugin with an aggregation manager. Off by default, as on most clusters.
    sharp: bool = False
    #: The site's power and cooling limits (`Site`); empty when the design states none.
    site: Site = NO_SITE


def fast_maker(cls: type) -> Any:
    """A constructor of the frozen, slotted dataclass `cls` taking its fields positionally (and
    by name, with the dataclass's defaults) that sets the slots directly.

    A frozen dataclass's own `__init__` sets each field through `object.__setattr__`; a file
    reader making 700,000 links and 1.4 million port references at 100k GPUs spent a third of
    the time it takes to read a line there. This one fills an object of a twin class (the same
    slots, in the same layout, but not frozen: plain attribute stores, which the interpreter
    specialises) and then makes it a `cls` (`__class__` assignment, which CPython allows
    between classes of the same slots): the same object (equal, hashable, frozen afterwards,
    `type(...) is cls`) in about 70 % of the time the slots' descriptors took, and under half
    of the dataclass's own (issue 38 item 19). Where the twin cannot become a `cls` (a layout
    of another shape), it sets the slots through their descriptors. It is made from `cls`'s
    fields, so a field added later is taken as well."""
    from dataclasses import MISSING, fields

    names = [f.name for f in fields(cls)]
    if any(f.default_factory is not MISSING for f in fields(cls)):
        raise TypeError(f"{cls.__name__}: fields with a default_factory are not supported")
    made = type(f"_{cls.__name__}Twin", (), {"__slots__": cls.__dict__["__slots__"]})
    twin: type | None = made
    try:
        probe: Any = object.__new__(made)
        probe.__class__ = cls
    except TypeError:
        twin = None
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_twin": twin}
    params = []
    for f in fields(cls):
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        slot = next(c.__dict__[f.name] for c in cls.__mro__ if f.name in c.__dict__)
        namespace[f"_s_{f.name}"] = slot.__set__  # the slot, on `cls` or a base
    if twin is not None:
        body = "".join(f"    o.{name} = {name}\n" for name in names)
        body = f"    o = _new(_twin)\n{body}    o.__class__ = _cls\n"
    else:
        body = "".join(f"    _s_{name}(o, {name})\n" for name in names)
        body = f"    o = _new(_cls)\n{body}"
    source = f"def make({', '.join(params)}):\n{body}    return o\n"
    exec(source, namespace)  # the way `dataclasses` itself writes `__init__`
    make = namespace["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    return make
