"""Where a generated design's devices go on the canvas (scene units), apart from the floor.

The floor (rack rows and columns, U positions) is data that cable lengths and the rack
elevation come from; the canvas only has to be readable. Racks keep the floor's rows and column
order, but each canvas column is as wide as its widest rack (empty racks stay narrow), and

- a rack whose contents would stack into a column much taller than wide (an NVL72's 27 trays,
  four large nodes) is wrapped: runs of same-sized blocks (trays, nodes, switches), still read
  left to right and top-down in U order, flow into rows of a few blocks each;
- a design much wider than a screen (an SU row of 16 DGX B200 racks) has its floor rows cut
  into segments stacked one under the other, at the aisles between SUs where possible.

Each choice is the one that shows the design largest when fitted into a `TARGET_ASPECT`
screen, and is taken only when it gains enough over the floor's own shape (`WRAP_GAIN`).
Fit-to-view shows an NVL72 at ~23 % (boxes labelled by kind) instead of a 0.06:1 strip at 7 %.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Width:height of the screen area the canvas gets (a landscape window minus its docks);
#: layouts are chosen to show as large as possible when fitted into it.
TARGET_ASPECT = 1.4
#: A rack is wrapped only when stacking would make it this many times taller than its share
#: of the target (a rack alone: narrower than 1:2).
WRAP_BELOW = 3.0
#: A design wider than this (width:height) has its floor rows wrapped on the canvas.
WRAP_ABOVE = 2.0
#: Wrapping (racks or floor rows) must show the design at least 1/WRAP_GAIN times larger than
#: keeping the floor's shape, or the floor's shape is kept.
WRAP_GAIN = 0.85
#: Gaps (scene units) between blocks side by side in a wrapped rack and between their rows;
#: wide enough for the group frames (margin and header) of neighbouring trays or nodes.
WRAP_GAP_X = 50.0
WRAP_GAP_Y = 60.0


@dataclass(frozen=True, slots=True)
class Packed:
    """Top-left offsets of a rack's blocks (in the order given) and the area they cover."""

    offsets: list[tuple[float, float]]
    width: float
    height: float


def stack(sizes: Sequence[tuple[float, float]], gap: float) -> Packed:
    """Blocks one under the other, top-down."""
    offsets = []
    y = 0.0
    for _, h in sizes:
        offsets.append((0.0, y))
        y += h + gap
    width = max((w for w, _ in sizes), default=0.0)
    return Packed(offsets, width, max(0.0, y - gap))


def _runs(sizes: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """(start, end) of each run of consecutive blocks of the same size."""
    runs: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(sizes) + 1):
        if i == len(sizes) or sizes[i] != sizes[start]:
            runs.append((start, i))
            start = i
    return runs


def flow(sizes: Sequence[tuple[float, float]], max_width: float) -> Packed:
    """Each run of same-sized blocks in balanced rows no wider than `max_width` (at least one
    block a row), rows centred on the widest; runs follow each other top-down."""
    rows: list[tuple[list[int], float, float]] = []  # members, row width, row height
    firsts: set[int] = set()  # rows that start a run get a double gap above them
    for start, end in _runs(sizes):
        firsts.add(len(rows))
        w, h = sizes[start]
        n = end - start
        fits = max(1, int((max_width + WRAP_GAP_X) // (w + WRAP_GAP_X)))
        n_rows = math.ceil(n / fits)
        per_row = math.ceil(n / n_rows)
        for r in range(start, end, per_row):
            members = list(range(r, min(r + per_row, end)))
            rows.append((members, len(members) * (w + WRAP_GAP_X) - WRAP_GAP_X, h))
    width = max((row_w for _, row_w, _ in rows), default=0.0)
    offsets: list[tuple[float, float]] = [(0.0, 0.0)] * len(sizes)
    y = 0.0
    for k, (members, row_w, h) in enumerate(rows):
        if k and k in firsts:
            y += WRAP_GAP_Y
        x = (width - row_w) / 2
        for i in members:
            offsets[i] = (x, y)
            x += sizes[i][0] + WRAP_GAP_X
        y += h + WRAP_GAP_Y
    return Packed(offsets, width, max(0.0, y - WRAP_GAP_Y))


def pack_rack(sizes: Sequence[tuple[float, float]], gap: float, target: float,
              header: float = 0.0) -> Packed:
    """A rack's blocks (top-down in U order) stacked, or wrapped into rows when the stack would
    be far taller than `target` (width:height) and a row width shows it larger on a screen of
    that shape; `header` is the height above the blocks that the rack's own box takes."""
    stacked = stack(sizes, gap)
    if not sizes or _aspect(stacked, header) * WRAP_BELOW >= target:
        return stacked
    best = stacked
    best_score = _extent(stacked.width, stacked.height + header, target) * WRAP_GAIN
    candidates = sorted({k * (w + WRAP_GAP_X) - WRAP_GAP_X
                         for w, _ in set(sizes) for k in range(1, len(sizes) + 1)})
    for max_width in candidates:
        packed = flow(sizes, max_width)
        score = _extent(packed.width, packed.height + header, target)
        if score < best_score - 1e-9:
            best, best_score = packed, score
    return best


def _aspect(packed: Packed, header: float) -> float:
    return max(packed.width, 1.0) / max(packed.height + header, 1.0)


def _extent(width: float, height: float, target: float) -> float:
    """Height of the smallest `target`-shaped box holding width x height: what fit-to-view
    on a screen of that shape has to show, so the smaller the more readable."""
    return max(width / target, height)



@dataclass(frozen=True, slots=True)
class Slot:
    """A packed rack on the floor grid: its floor row and column, and its canvas size."""

    key: str
    row: int
    col: int
    width: float
    height: float


def place_racks(slots: Sequence[Slot], column_gap: float, row_gap: float
                ) -> dict[str, tuple[float, float]]:
    """Top-left canvas position of each rack.

    Floor rows one under the other; within a row, racks at their column's x, each column as
    wide as its widest rack. When that comes out wider than `WRAP_ABOVE` (two SUs side by side
    on a floor row), floor rows are cut into segments that are stacked and centred: whole runs
    of racks between empty floor columns (the aisles between SUs) where they fit, otherwise
    runs split into near-equal counts; the segment width is the one that shows the design
    largest on a `TARGET_ASPECT` screen.
    """
    if not slots:
        return {}
    widths: dict[int, float] = {}
    for s in slots:
        widths[s.col] = max(widths.get(s.col, 0.0), s.width)
    col_x: dict[int, float] = {}
    x = 0.0
    for col in range(max(widths) + 1):
        col_x[col] = x
        x += widths.get(col, 0.0) + column_gap
    rows: dict[int, list[Slot]] = {}
    for s in slots:
        rows.setdefault(s.row, []).append(s)
    floor = [sorted(rows[r], key=lambda s: s.col) for r in sorted(rows)]
    best = _unwrapped(floor, col_x, row_gap)
    if _ratio(best[1]) <= WRAP_ABOVE:
        return best[0]
    runs = [_split_runs(row) for row in floor]

    def span(seg: Sequence[Slot]) -> float:
        return col_x[seg[-1].col] + seg[-1].width - col_x[seg[0].col]

    limits = set()
    for row_runs in runs:
        for i in range(len(row_runs)):
            for j in range(i, len(row_runs)):
                limits.add(span([*row_runs[i], *row_runs[j]]))
            for k in range(2, len(row_runs[i]) + 1):
                limits.add(max(span(c) for c in _chunks(row_runs[i], k)))
    best_score = _extent(*best[1], TARGET_ASPECT) * WRAP_GAIN
    for limit in sorted(limits):
        placed = _wrapped(runs, span, col_x, limit, row_gap)
        score = _extent(*placed[1], TARGET_ASPECT)
        if score < best_score - 1e-9:
            best, best_score = placed, score
    return best[0]


Placement = tuple[dict[str, tuple[float, float]], tuple[float, float]]


def _ratio(size: tuple[float, float]) -> float:
    return max(size[0], 1.0) / max(size[1], 1.0)


def _split_runs(row: list[Slot]) -> list[list[Slot]]:
    """A floor row's racks in runs of adjacent columns (an empty column ends a run)."""
    runs = [[row[0]]]
    for s in row[1:]:
        if s.col == runs[-1][-1].col + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


def _chunks(run: list[Slot], k: int) -> list[list[Slot]]:
    """`run` cut into `k` consecutive pieces whose counts differ by at most one."""
    n = len(run)
    return [run[i * n // k:(i + 1) * n // k] for i in range(k)]


def _unwrapped(floor: list[list[Slot]], col_x: dict[int, float], row_gap: float) -> Placement:
    out: dict[str, tuple[float, float]] = {}
    y = width = 0.0
    for row in floor:
        for s in row:
            out[s.key] = (col_x[s.col], y)
            width = max(width, col_x[s.col] + s.width)
        y += max(s.height for s in row) + row_gap
    return out, (width, y - row_gap)


def _wrapped(runs: list[list[list[Slot]]], span: Callable[[Sequence[Slot]], float],
             col_x: dict[int, float], limit: float, row_gap: float) -> Placement:
    segments: list[tuple[list[Slot], bool]] = []  # racks, first segment of its floor row
    for row_runs in runs:
        current: list[Slot] = []
        first = True
        for run in row_runs:
            if current and span([*current, *run]) > limit:
                segments.append((current, first))
                current, first = [], False
            if span(run) <= limit:
                current.extend(run)
                continue
            k = next((k for k in range(2, len(run) + 1)
                      if max(span(c) for c in _chunks(run, k)) <= limit), len(run))
            *pieces, current = _chunks(run, k)
            for piece in pieces:
                segments.append((piece, first))
                first = False
        segments.append((current, first))
    width = max(span(seg) for seg, _ in segments)
    out: dict[str, tuple[float, float]] = {}
    y = 0.0
    for i, (seg, first) in enumerate(segments):
        if i:
            y += row_gap if first else row_gap / 2
        x0 = (width - span(seg)) / 2 - col_x[seg[0].col]
        for s in seg:
            out[s.key] = (x0 + col_x[s.col], y)
        y += max(s.height for s in seg)
    return out, (width, y)
