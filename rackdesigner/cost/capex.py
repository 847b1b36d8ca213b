"""Capital cost: the bill of materials priced line by line from a price book.

Every line of `bom.bill_of_materials` is priced: items as bought (a system's price covers its
parts, so parts counted `in_systems` are not bought again), cables by the length the design
gives or implies (per metre, per length bucket or per piece), transceivers per piece; then
installation per rack and spares as a percentage of the hardware. A line without a price is
kept, unpriced, with the reason (no price in the book, no cable type, a length the book's
buckets do not reach): the total is then a lower bound and says so ("≥ $41.2 M, 96 items
without a price"), like power's `complete` flag. Nothing is ever priced by guess.

The breakdown files each line under its BOM kind and a category (compute, network, facility,
services), and under the design's top-level groups (`bom.BomGroup`); both add up to the total.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rackdesigner.bom import UNSPECIFIED, Bom, bill_of_materials
from rackdesigner.cost.pricebook import PriceBook
from rackdesigner.model import Layout
from rackdesigner.vocabulary import traits_of

#: The money categories a planner asks about ("how much of it is network?"), by the kind
#: registry's role of a kind (vocabulary/kinds.py); racks count as facility, other enclosures
#: (systems, chassis) as compute.
ROLE_CATEGORY = {
    "gpu": "compute", "cpu": "compute", "pcie_switch": "compute", "enclosure": "compute",
    "switch": "network", "nvswitch": "network", "nic": "network", "media": "network",
    "management": "network", "storage": "storage", "facility": "facility",
}
CATEGORIES = ("compute", "network", "storage", "facility", "services", "other")
SERVICES = ("installation", "spares")


def category_of(kind: str) -> str:
    """The money category of a BOM kind (or of the `installation` / `spares` lines)."""
    from rackdesigner.vocabulary.kinds import KINDS

    if kind in SERVICES:
        return "services"
    entry = KINDS.get(kind)
    if entry is None:
        return "other"
    if entry.traits.contains == "units":  # racks
        return "facility"
    return ROLE_CATEGORY.get(entry.role, "other")


@dataclass(frozen=True, slots=True)
class Line:
    """One priced (or unpriced) line: `count` of `model`, at `unit` each."""

    section: str  # "item", "cable", "transceiver", "installation", "spares"
    model: str
    kind: str
    count: int
    unit: float | None
    length_m: float | None = None
    reason: str = ""  # why unpriced
    source: str = ""
    date: str = ""
    basis: str = ""
    method: str = ""  # how a derived price was worked out

    @property
    def total(self) -> float:
        return (self.unit or 0.0) * self.count

    @property
    def priced(self) -> bool:
        return self.unit is not None

    def to_dict(self) -> dict:
        out = {"section": self.section, "model": self.model, "kind": self.kind,
               "category": category_of(self.kind), "count": self.count,
               "unit_price": _r(self.unit), "total": _r(self.total) if self.priced else None}
        if self.length_m is not None:
            out["length_m"] = self.length_m
        if self.priced:
            out.update(source=self.source, date=self.date, basis=self.basis)
            if self.method:
                out["method"] = self.method
        else:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class Capex:
    lines: tuple[Line, ...]
    hardware: float  # items, cables and optics that have a price
    installation: float
    spares: float
    racks: int
    by_group: dict[str, float] = field(default_factory=dict)
    group_names: dict[str, str] = field(default_factory=dict)
    #: the NICs and DPUs that come inside systems (a DGX's ConnectX-7s), at the book's price of
    #: the same card bought alone: money the system's price holds and the compute category
    #: shows, which analysts' build-out splits count as network (`network_with_system_nics`)
    system_nics: float = 0.0

    @property
    def total(self) -> float:
        return self.hardware + self.installation + self.spares

    @property
    def unpriced(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if not line.priced)

    @property
    def unpriced_items(self) -> int:
        return sum(line.count for line in self.unpriced)

    @property
    def complete(self) -> bool:
        return not self.unpriced

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for line in self.lines:
            if line.priced:
                out[line.kind] += line.total
        return dict(out)

    def by_category(self) -> dict[str, float]:
        out = dict.fromkeys(CATEGORIES, 0.0)
        for kind, value in self.by_kind().items():
            out[category_of(kind)] += value
        return {k: v for k, v in out.items() if v or k in ("compute", "network")}

    def network_with_system_nics(self) -> float:
        """The network category plus the systems' own NICs and DPUs (moved from compute, so
        the total is unchanged): the network as analysts' build-out splits count it."""
        return self.by_category()["network"] + self.system_nics


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def price_design(layout: Layout, book: PriceBook, bom: Bom | None = None) -> Capex:
    """The capital cost of `layout` from `book` (the BOM is computed unless given; it must be a
    `split=True` one for the per-group figures)."""
    if bom is None:
        bom = bill_of_materials(layout, split=True)
    lines: list[Line] = []
    unit_of: dict[tuple[str, float | None], float | None] = {}

    def price_of(model: str, length: float | None) -> tuple[float | None, str]:
        price = book.price(model)
        if price is None:
            return None, "no price in the book"
        value = price.for_length(length)
        if value is None:
            if length is None:
                return None, "priced by length, and the cable's length is not known"
            return None, f"{length:g} m is longer than the book's longest length bucket"
        return value, ""

    def add(section: str, model: str, kind: str, count: int, length: float | None) -> None:
        if count <= 0:
            return
        if model == UNSPECIFIED:
            lines.append(Line(section, model, kind, count, None, length,
                              "no cable type: the link names none, and an end is in no rack "
                              "or no catalog cable fits its ports"))
            return
        unit, reason = price_of(model, length)
        unit_of[(model, length)] = unit
        p = book.price(model)
        meta = {"source": p.source, "date": p.date, "basis": p.basis, "method": p.method} \
            if (p is not None and unit is not None) else {}
        lines.append(Line(section, model, kind, count, unit, length, reason, **meta))

    for item in bom.items:
        add("item", item.model, item.kind, item.count - item.in_systems, None)
    for cable in bom.cables:
        add("cable", cable.type, "cable", cable.count, cable.length_m)
    for t in bom.transceivers:
        add("transceiver", t.model, "transceiver", t.count, None)
    hardware = sum(line.total for line in lines)
    system_nics = _system_nics(bom, book)
    racks = sum(item.count for item in bom.items if traits_of(item.kind).contains == "units")
    installation = 0.0
    install = book.installation_per_rack
    if install is not None and install.unit is not None and racks:
        installation = install.unit * racks
        lines.append(Line("installation", "installation per rack", "installation", racks,
                          install.unit, None, "", install.source, install.date, install.basis))
    spares = 0.0
    if book.spares_percent is not None and hardware:
        spares = hardware * book.spares_percent.value / 100.0
        lines.append(Line("spares", f"spares {book.spares_percent.value:g} % of hardware",
                          "spares", 1, spares, None, "", book.spares_percent.source,
                          book.spares_percent.date, book.spares_percent.basis))
    by_group = _by_group(bom, unit_of, install.unit if install is not None else None,
                         spares / hardware if hardware else 0.0, layout)
    names = {g: (layout.group(g).label if layout.has_group(g) else g) for g in by_group}
    return Capex(tuple(lines), hardware, installation, spares, racks, by_group, names,
                 system_nics)


def _system_nics(bom: Bom, book: PriceBook) -> float:
    """The NICs and DPUs counted inside systems, at the book's price of each bought alone (a
    card without a price in the book adds nothing: a lower bound)."""
    total = 0.0
    for item in bom.items:
        if item.in_systems and traits_of(item.kind).endpoint:  # NICs and DPUs
            price = book.price(item.model)
            unit = price.for_length(None) if price is not None else None
            total += (unit or 0.0) * item.in_systems
    return total


def _by_group(bom: Bom, unit_of: dict, install_unit: float | None, spares_share: float,
              layout: Layout) -> dict[str, float]:
    """Capex per filed group: its priced items, cables and optics, installation of its racks,
    and spares in proportion to its hardware (so the groups add up to the total)."""
    out: dict[str, float] = {}
    rack_models = {i.model for i in bom.items if traits_of(i.kind).contains == "units"}
    for group in bom.groups:
        hw = 0.0
        racks = 0
        for model, n in group.items.items():
            hw += (unit_of.get((model, None)) or 0.0) * n
            if model in rack_models:
                racks += n
        for (model, _media, length), n in group.cables.items():
            hw += (unit_of.get((model, length)) or 0.0) * n
        for model, n in group.transceivers.items():
            hw += (unit_of.get((model, None)) or 0.0) * n
        out[group.group] = hw * (1.0 + spares_share) + (install_unit or 0.0) * racks
    return out


__all__ = ["CATEGORIES", "Capex", "Line", "category_of", "price_design"]
