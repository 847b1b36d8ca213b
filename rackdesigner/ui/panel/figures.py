"""The panel's numbers, without Qt: headline figures, deltas to a baseline, units, CSV rows.

Kept apart from the widgets so the figures the user reads, the deltas and the exported CSV come
from one place and can be tested without a QApplication.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.model import Layout
from rackdesigner.model.power import device_draw
from rackdesigner.simulation import SimulationResult
from rackdesigner.simulation.ranges import FigureRange

KIB = 1024
REFERENCE_SIZES = tuple(2 ** e for e in range(20, 35))  # 1 MiB .. 16 GiB
DEFAULT_REFERENCE = 2 ** 30

# catalog kind -> power category of the stacked bars (see theme.POWER_CATEGORIES)


def format_bytes(n: float) -> str:
    """8 B, 1 KiB, 512 KiB, 1 MiB, 16 GiB (binary units, as nccl-tests sizes)."""
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", KIB)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n:g} B"


def format_bw(gbps: float | None) -> str:
    if gbps is None:
        return "—"
    if gbps >= 10_000:
        return f"{gbps / 1000:,.1f} TB/s"
    return f"{gbps:,.1f} GB/s" if gbps < 1000 else f"{gbps:,.0f} GB/s"


def format_us(us: float | None) -> str:
    if us is None:
        return "—"
    if us >= 1000:
        return f"{us / 1000:,.2f} ms"
    if us >= 10:
        return f"{us:,.1f} µs"
    return f"{us:.2f} µs"


def format_watts(w: float | None) -> str:
    if w is None:
        return "—"
    if abs(w) >= 1_000_000:
        return f"{w / 1e6:,.2f} MW"
    if abs(w) >= 1000:
        return f"{w / 1000:,.1f} kW"
    return f"{w:,.0f} W"


@dataclass(frozen=True)
class Figure:
    """One headline figure: `value` is what deltas compare; `text` is what the user reads."""

    key: str
    label: str
    value: float | None
    text: str
    detail: str = ""
    higher_is_better: bool | None = True  # None: a delta is neutral (counts, sizes)
    explain: str = ""  # longer text for the tile's tooltip (e.g. the bisection's bottleneck)


def worst_oversubscription(result: SimulationResult) -> float | None:
    values = [v for v in result.bandwidth.oversubscription_worst.values() if v is not None]
    return max(values) if values else None


def racks_over_budget(result: SimulationResult) -> tuple[int, int]:
    """(racks over their budget, racks with a budget)."""
    over = budgeted = 0
    for rack in result.power.by_rack.values():
        if rack.budget_w:
            budgeted += 1
            over += rack.over_budget
    return over, budgeted


def headline(result: SimulationResult, reference: int = DEFAULT_REFERENCE) -> list[Figure]:
    """The figures always visible at the top of the panel, in display order."""
    scope, bw, lat, power = result.scope, result.bandwidth, result.latency, result.power
    has_gpus = scope.gpus > 0
    gpus_detail = ""
    cut_off = getattr(scope, "unreachable_gpus", scope.gpus - scope.reachable_gpus)
    if scope.reachable_gpus != scope.gpus:
        gpus_detail = f"{scope.reachable_gpus} reachable, {cut_off} cut off"
    elif has_gpus:
        gpus_detail = f"{scope.nodes} node{'s' * (scope.nodes != 1)}"
    point = result.point_at("all_reduce", reference)
    busbw_range = result.ranges(point)[0] if point is not None else None
    over = worst_oversubscription(result)
    n_over, n_budget = racks_over_budget(result)
    lat_text = "—"
    if lat.min_us is not None and lat.max_us is not None:
        lat_text = (format_us(lat.min_us) if math.isclose(lat.min_us, lat.max_us)
                    else f"{format_us(lat.min_us)} – {format_us(lat.max_us)}")
    elif has_gpus and lat.histogram:
        lat_text = "n/a"
    return [
        Figure("gpus", "GPUs in scope", float(scope.gpus), f"{scope.gpus:,}", gpus_detail, None),
        Figure("nvlink_domain", "Largest NVLink domain", float(scope.largest_nvlink_domain),
               f"{scope.largest_nvlink_domain:,} GPUs" if has_gpus else "—",
               f"{scope.nvlink_domains} domain{'s' * (scope.nvlink_domains != 1)}"
               if has_gpus else "", True),
        Figure("scale_up", "Scale-up / GPU", bw.per_gpu_scale_up_GBps if has_gpus else None,
               format_bw(bw.per_gpu_scale_up_GBps) if has_gpus else "—", "NVLink, per direction"),
        Figure("scale_out", "Scale-out / GPU", bw.per_gpu_scale_out_GBps if has_gpus else None,
               format_bw(bw.per_gpu_scale_out_GBps) if has_gpus else "—",
               "own NIC share, slowest GPU"),
        Figure("bisection", "Bisection", bw.bisection_GBps if has_gpus else None,
               format_bw(bw.bisection_GBps) if has_gpus else "—",
               "partitioned: GPUs cut off" if cut_off else "per direction", True,
               getattr(bw, "bisection_bottleneck", None) or ""),
        Figure("oversubscription", "Worst oversubscription", over,
               f"{over:.2f} : 1" if over is not None else ("none" if has_gpus else "—"),
               ", ".join(f"{t} {v:.2f}" for t, v in bw.oversubscription.items() if v is not None)
               or ("no switch uplinks" if has_gpus else ""), False),
        Figure("busbw", f"all_reduce busbw @ {format_bytes(reference)}",
               point.busbw_GBps if point else None,
               format_bw(point.busbw_GBps) if point else ("unavailable" if cut_off else "—"),
               f"{point.algorithm} / {point.protocol}" + _range_detail(busbw_range) if point
               else (f"{cut_off} GPUs unreachable" if cut_off else ""), True,
               busbw_range.text(format_bw) if busbw_range is not None else ""),
        # a partitioned design's latency covers only the reachable part: not comparable
        Figure("latency", "GPU-to-GPU latency", None if cut_off else lat.max_us,
               "unavailable" if cut_off else lat_text,
               f"{lat.max_hops} hops max" if has_gpus and lat.max_hops else "", False),
        Figure("power", "Power (max)", power.total_max_w,
               ("" if power.complete else "≥ ") + format_watts(power.total_max_w),
               f"typical {format_watts(power.total_typical_w)}" if power.complete else
               power.headline.partition(", ")[2], False),
        Figure("per_gpu", "Power / GPU", power.per_gpu_w,
               format_watts(power.per_gpu_w) if power.per_gpu_w is not None else "—",
               f"facility {format_watts(power.facility_w)} (PUE {power.pue:.3g})", False),
        Figure("over_budget", "Racks over budget", float(n_over),
               f"{n_over} of {n_budget}" if n_budget else "—", "", False),
    ]


def _range_detail(spread: FigureRange | None) -> str:
    """The tile's short range on a line of its own, so a narrow tile stays narrow:
    "published 338–372" (the tooltip says which class)."""
    if spread is None:
        return ""
    return f"\npublished {spread.lo:,.0f}–{spread.hi:,.0f}"


@dataclass(frozen=True)
class Delta:
    text: str  # e.g. "+38%", "−12.0 kW"
    good: bool | None  # None: neutral


def delta(current: Figure, base: Figure) -> Delta | None:
    """How `current` differs from the pinned `base` figure; None when equal or not comparable."""
    a, b = current.value, base.value
    if a is None or b is None or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9):
        return None
    better = None if current.higher_is_better is None else (a > b) == current.higher_is_better
    if current.key in ("power", "per_gpu"):
        if abs(a - b) < 0.5:  # shows as "0 W": not a difference the user can read
            return None
        return Delta(_signed(format_watts(a - b), a - b), better)
    if current.key in ("gpus", "nvlink_domain", "over_budget"):
        return Delta(f"{a - b:+,.0f}".replace("-", "−"), better)
    if current.key == "oversubscription":
        return Delta(f"{a - b:+.2f}".replace("-", "−"), better)
    if b == 0:
        return Delta("new", better)
    if abs(a - b) / abs(b) < 0.005:  # rounds to 0%
        return None
    return Delta(f"{(a - b) / abs(b) * 100:+.0f}%".replace("-", "−"), better)


def _signed(text: str, value: float) -> str:
    text = text.lstrip("-")
    return ("+" if value > 0 else "−") + text


def rack_power_by_category(layout: Layout, result: SimulationResult,
                           members: set[str] | None) -> dict[str, dict[str, float]]:
    """Max watts per rack split by device category, summing to the result's rack figure.

    The engine reports each rack's total (`rackdesigner.model.power`, whose device draw this
    reuses); the split follows the catalog's device kinds, and what the devices do not explain
    (the cable and transceiver ends the engine adds) is "optics", so the stacked bar always adds
    up to the figure the engine reports.
    """
    split: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    catalog = layout.catalog
    for device in layout.devices():
        if device.rack is None or (members is not None and device.id not in members):
            continue
        spec = catalog.get(device.model) if device.model in catalog else None
        if spec is None or not spec.traits.draws_power:
            continue
        peak = device_draw(spec)[1]
        split[device.rack][vocabulary.kind(spec.kind).power] += peak
    out: dict[str, dict[str, float]] = {}
    for rack, info in result.power.by_rack.items():
        parts = dict(split.get(rack, {}))
        rest = info.max_w - sum(parts.values())
        if rest > 0.05:
            parts["optics"] = parts.get("optics", 0.0) + rest
        out[rack] = parts
    return out


CSV_COLUMNS = ("collective", "bytes", "size", "time_us", "algbw_GBps", "busbw_GBps",
               "algorithm", "protocol")


def result_csv(result: SimulationResult, reference: int = DEFAULT_REFERENCE) -> str:
    """The headline figures, then one row per collective and message size."""
    from rackdesigner.io.sanitize import csv_text

    rows: list[tuple] = [("figure", "value", "text", "detail")]
    for fig in headline(result, reference):
        rows.append((fig.label, "" if fig.value is None else round(fig.value, 4),
                     fig.text, fig.detail.replace("\n", "; ")))
    rows += [(), CSV_COLUMNS]
    for name, points in result.collectives.items():
        for p in points:
            rows.append((name, p.bytes, format_bytes(p.bytes), round(p.time_us, 3),
                         round(p.algbw_GBps, 3), round(p.busbw_GBps, 3), p.algorithm,
                         p.protocol))
    rows += [("# " + message,) for message in result.messages]
    return csv_text(rows)


def algorithm_spans(points) -> list[tuple[str, int, int]]:
    """Contiguous runs of the chosen algorithm: (algorithm, first index, last index)."""
    spans: list[tuple[str, int, int]] = []
    for i, p in enumerate(points):
        if spans and spans[-1][0] == p.algorithm:
            spans[-1] = (p.algorithm, spans[-1][1], i)
        else:
            spans.append((p.algorithm, i, i))
    return spans

