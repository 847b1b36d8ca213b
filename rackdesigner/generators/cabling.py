"""Cable choice and length for a link, from where its two ends sit on the floor.

The floor model (stated here because every generated length follows from it):

- racks stand in rows; a rack is `RACK_WIDTH_M` wide and rows are `ROW_PITCH_M` apart (rack
  depth plus a hot and a cold aisle);
- a device's height in its rack is its U position times `U_M` (one rack unit, 44.45 mm);
- inside one rack a cable runs vertically between the two U positions, plus
  `SAME_RACK_SLACK_M` for the run to the rear and the bend radius;
- between racks a cable rises from each device to an overhead tray `TRAY_ABOVE_M` above the rack
  top, runs the Manhattan distance between the two racks, and gets the routing allowance
  `ROUTING_ALLOWANCE` (a fraction of the run) plus `SLACK_M` of service loop;
- the result is rounded up to the next orderable length of the chosen cable family.

Media follow the brief every NVIDIA reference architecture gives: passive copper (DAC) inside a
rack when it reaches, active copper (ACC) a little further, and optics (AOC, or fibre with a
transceiver at each end) between racks. Only cables in the catalog are ever chosen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog, DeviceSpec

U_M = 0.04445
RACK_WIDTH_M = 0.6
ROW_PITCH_M = 3.0
TRAY_ABOVE_M = 0.6
SAME_RACK_SLACK_M = 0.5
ROUTING_ALLOWANCE = 0.10
SLACK_M = 1.0

#: Orderable lengths (metres) per cable medium; a length is rounded up to the next one.
STANDARD_LENGTHS: dict[str, tuple[float, ...]] = {
    "dac": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0),
    "acc": (3.0, 4.0, 5.0, 6.0, 7.0),
    "aec": (3.0, 4.0, 5.0, 6.0, 7.0),
    "aoc": (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0),
    "fiber": (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0,
              80.0, 90.0, 100.0, 150.0, 200.0, 300.0, 500.0),
    # twisted-pair patch cords (RJ45, 1000BASE-T management links): common catalogue lengths
    "utp": (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0),
}
COPPER = ("dac", "acc", "aec", "utp")
OPTICAL = ("aoc", "fiber")


@dataclass(frozen=True, slots=True)
class FloorSpot:
    """Where a rack stands: floor coordinates of its front-left corner, in metres."""

    x_m: float
    y_m: float
    height_u: int


def run_length_m(a: FloorSpot, a_u: int | None, b: FloorSpot, b_u: int | None,
                 same_rack: bool) -> float:
    """Physical cable run between two devices (before rounding to an orderable length)."""
    ua = a_u or 1
    ub = b_u or 1
    if same_rack:
        return abs(ua - ub) * U_M + SAME_RACK_SLACK_M
    rise_a = (a.height_u - ua + 1) * U_M + TRAY_ABOVE_M
    rise_b = (b.height_u - ub + 1) * U_M + TRAY_ABOVE_M
    run = abs(a.x_m - b.x_m) + abs(a.y_m - b.y_m) + rise_a + rise_b
    return run * (1.0 + ROUTING_ALLOWANCE) + SLACK_M


def round_up(length_m: float, media: str, max_length_m: float) -> float | None:
    """The next orderable length of a medium, or None when the cable cannot reach."""
    for step in STANDARD_LENGTHS.get(media, ()):
        if step + 1e-9 >= length_m and step <= max_length_m + 1e-9:
            return step
    if media not in STANDARD_LENGTHS and length_m <= max_length_m:
        return math.ceil(length_m * 2) / 2
    return None


class CablePicker:
    """Chooses catalog cables by protocol, rate, medium and reach (cached per catalog)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._cables = [s for s in catalog.doing("media", "cable")
                        if s.cable is not None and s.cable.media != "pcb"]
        self._cache: dict[tuple[str, float, bool, float], tuple[str, float] | None] = {}

    def candidates(self, protocol: str, rate_gbps: float, media: tuple[str, ...]
                   ) -> list[DeviceSpec]:
        """Cables of a protocol and media, the exact rate first, then faster, by reach."""
        out = [s for s in self._cables
               if s.cable is not None and protocol in s.cable.protocols
               and s.cable.media in media and s.cable.rate_gbps >= rate_gbps]
        out.sort(key=lambda s: (s.cable.rate_gbps != rate_gbps, s.cable.rate_gbps,  # type: ignore[union-attr]
                                s.cable.max_length_m, s.id))  # type: ignore[union-attr]
        return out

    def pick(self, protocol: str, rate_gbps: float, same_rack: bool, run_m: float
             ) -> tuple[str, float] | None:
        """(cable id, orderable length) for a run, or None when the catalog has no fit.

        Inside a rack copper is preferred and optics are the fallback (e.g. HDR, for which the
        catalog has only an AOC); between racks only optics are used.
        """
        key = (protocol, rate_gbps, same_rack, round(run_m, 3))
        if key in self._cache:
            return self._cache[key]
        order = (COPPER, OPTICAL) if same_rack else (OPTICAL,)
        result = None
        for media in order:
            for spec in self.candidates(protocol, rate_gbps, media):
                assert spec.cable is not None
                length = round_up(run_m, spec.cable.media, spec.cable.max_length_m)
                if length is not None:
                    result = (spec.id, length)
                    break
            if result is not None:
                break
        self._cache[key] = result
        return result


# ---- links drawn by hand --------------------------------------------------------------------

#: Cabled protocols: NVLink, PCIe and C2C links are board or backplane connections, not cables.
CABLED_PROTOCOLS = vocabulary.protocols_of("network")
#: Canvas rows of racks: racks whose tops are within this many scene units stand in one row.
CANVAS_ROW_TOLERANCE = 200.0
#: Model assumption for a link with an end in no rack: an in-rack run of this length (a
#: top-of-rack switch a few U above the node), so the link still gets an orderable cable.
UNPLACED_RUN_M = 2.0


#: Device key of a rack: where it stands on the floor, `[x, y]` in metres (front-left corner).
FLOOR_PROP = "floor"


def floor_of(device) -> tuple[float, float] | None:
    """The floor position set on a rack device (`floor: [x, y]`), or None."""
    for key, value in device.props:
        if key == FLOOR_PROP and isinstance(value, list | tuple) and len(value) == 2:
            return float(value[0]), float(value[1])
    return None


def floor_spots(layout) -> dict[str, FloorSpot]:
    """Floor spots of a layout's racks. A rack placed on the floor plan (`floor: [x, y]`)
    stands there; the others are read from the canvas: racks whose tops line up form a floor
    row (rows `ROW_PITCH_M` apart, top to bottom), ordered left to right (`RACK_WIDTH_M`
    apart) — the same floor model the generators place racks on."""
    racks = []
    placed: dict[str, FloorSpot] = {}
    catalog = layout.catalog
    height_of: dict[str, int | None] = {}  # per model: a rack's height, None for other kinds
    for device in layout.devices():  # (122,000 devices at 32k GPUs: one lookup per model)
        model = device.model
        if model in height_of:
            height = height_of[model]
        else:
            spec = catalog.get(model) if model in catalog else None
            height = height_of[model] = (spec.rack.height_u if spec is not None
                                         and spec.rack is not None else None)
        if height is None:
            continue
        at = floor_of(device)
        if at is not None:
            placed[device.id] = FloorSpot(at[0], at[1], height)
        else:
            racks.append((device.pos[1], device.pos[0], device.id, height))
    racks.sort()
    rows: list[list[tuple[float, str, int]]] = []
    row_top = None
    for y, x, rack_id, height in racks:
        if row_top is None or y - row_top > CANVAS_ROW_TOLERANCE:
            rows.append([])
            row_top = y
        rows[-1].append((x, rack_id, height))
    spots = {rack_id: FloorSpot(col * RACK_WIDTH_M, r * ROW_PITCH_M, height)
             for r, row in enumerate(rows)
             for col, (_x, rack_id, height) in enumerate(sorted(row))}
    spots.update(placed)
    return spots


@dataclass(frozen=True, slots=True)
class CableChoice:
    cable: str
    length_m: float
    assumed: bool  # True: an end is in no rack, the run is `UNPLACED_RUN_M`


def default_cable(layout, a, b, picker: CablePicker | None = None,
                  spots: dict[str, FloorSpot] | None = None) -> CableChoice | None:
    """The cable a new link between port refs `a` and `b` gets: by the generators' rules when
    both ends are in racks (copper inside a rack, optics between racks, rounded up to an
    orderable length); an in-rack run of `UNPLACED_RUN_M` when an end is in no rack. None for
    links that are not cables (NVLink, PCIe, C2C) or when the catalog has no fit."""
    spec_a, spec_b = layout.spec(a.device), layout.spec(b.device)
    if spec_a is None or spec_b is None:
        return None
    try:
        port_a, port_b = spec_a.port(a.group), spec_b.port(b.group)
    except (KeyError, ValueError):
        return None
    if port_a.protocol not in CABLED_PROTOCOLS:
        return None
    picker = picker or CablePicker(layout.catalog)
    da, db = layout.device(a.device), layout.device(b.device)
    spots = spots if spots is not None else floor_spots(layout)
    placed = da.rack in spots and db.rack in spots
    if placed:
        same = da.rack == db.rack
        run = run_length_m(spots[da.rack], da.u, spots[db.rack], db.u, same)
    else:
        same, run = True, UNPLACED_RUN_M
    picked = picker.pick(port_a.protocol, min(port_a.rate_gbps, port_b.rate_gbps), same, run)
    if picked is None:
        return None
    return CableChoice(picked[0], picked[1], not placed)
