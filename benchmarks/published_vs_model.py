"""Simulated vs published nccl-tests figures, run by run.

    python3 benchmarks/published_vs_model.py [--json] [--only TEXT] [--table FILE]

For every run in `benchmarks/published/nccl_tests.yaml` (the published measurements, each with
its source), the script builds the matching design with `rackdesigner.generators.generate`
(`design:` in the table: template and options), simulates it with the public `simulate()` API
(the run's algorithm; `sharp` when the engine takes it), reads the collective's point at the
published message size from the result's JSON form, and prints published vs simulated with the
error in percent (simulated − published, relative to published), then the mean absolute and the
worst error over the runs it could compare. Runs whose design cannot be generated, or whose
algorithm the engine refuses on that design, are listed with the reason and left out of the
means.

It uses only `generate()`, `simulate()` and `SimulationResult.to_dict()`, so it keeps working
while the engine changes. Exit status 0, or 2 when the table is not usable (the message names
file:line and what was expected).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from rackdesigner.generators import GeneratorError, generate  # noqa: E402
from rackdesigner.simulation import SimulationInputError, simulate  # noqa: E402

TABLE = ROOT / "benchmarks" / "published" / "nccl_tests.yaml"
SCHEMA = "rackdesigner.published-nccl-tests/1"
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv",
               "broadcast", "reduce")
REQUIRED = {"id": str, "set": str, "system": str, "nodes": int, "gpus_per_node": int,
            "fabric": str, "collective": str, "size_bytes": int, "source": dict}
#: calibration: a constant of the engine is fitted on the run; validation: it only checks
SETS = ("calibration", "validation")
DESIGN_KEYS = ("template", "algorithm", "sharp", "tuning")
#: message-size bands of the summary: latency region, the mid-size curve, large messages
SIZE_BANDS = (("size<1M", 0, 1 << 20), ("size1M-128M", 1 << 20, 128 << 20),
              ("size>=128M", 128 << 20, 1 << 62))


class TableError(ValueError):
    """The published table is not usable; the message names file:line."""


@dataclass(frozen=True)
class Run:
    line: int
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def compare(self) -> str:
        return self.data.get("compare", "busbw_GBps")

    @property
    def published(self) -> float:
        return float(self.data[self.compare])

    @property
    def multi_node(self) -> bool:
        """The run crosses a network (InfiniBand/Ethernet), not only NVLink inside a domain."""
        fabric = str(self.data["fabric"])
        return self.data["nodes"] > 1 and any(net in fabric for net in ("InfiniBand", "Ethernet"))


@dataclass
class Row:
    run: Run
    simulated: float | None = None
    algorithm: str | None = None  # what the engine used at that size
    skipped: str | None = None
    warnings: list[str] = field(default_factory=list)
    domains: int | None = None  # NVLink domains (NCCL nodes) of the simulated scope
    transport: str | None = None  # the transport the NICs name (EFA), from the result's scope

    @property
    def ratio(self) -> float | None:
        """published / simulated as a rate (a time compares the other way round)."""
        if self.simulated is None or self.simulated <= 0:
            return None
        if self.run.compare == "time_us":
            return self.simulated / self.run.published
        return self.run.published / self.simulated

    @property
    def error_pct(self) -> float | None:
        if self.simulated is None:
            return None
        return (self.simulated - self.run.published) / self.run.published * 100.0

    def to_dict(self) -> dict[str, Any]:
        d = self.run.data
        err = self.error_pct
        return {"id": d["id"], "set": d["set"], "collective": d["collective"],
                "size_bytes": d["size_bytes"],
                "nodes": d["nodes"], "gpus": d["nodes"] * d["gpus_per_node"],
                "figure": self.run.compare, "published": self.run.published,
                "simulated": None if self.simulated is None else round(self.simulated, 3),
                "error_pct": None if err is None else round(err, 2),
                "engine_algorithm": self.algorithm, "skipped": self.skipped,
                "warnings": self.warnings, "source": d["source"].get("url")}


def load_table(path: Path) -> list[Run]:
    """The runs of the published table, checked; `TableError` names file:line on a problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TableError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise TableError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise TableError(f"{path}:1: expected a mapping with schema: {SCHEMA}")
    runs_node = next((v for k, v in root.value if k.value == "runs"), None)
    if runs_node is None or not isinstance(data.get("runs"), list):
        raise TableError(f"{path}:1: expected a list under 'runs:'")
    runs: list[Run] = []
    seen: dict[str, int] = {}
    for node, entry in zip(runs_node.value, data["runs"], strict=True):
        line = node.start_mark.line + 1
        where = f"{path}:{line}"
        if not isinstance(entry, dict):
            raise TableError(f"{where}: expected a mapping for a run")
        for key, kind in REQUIRED.items():
            if key not in entry:
                raise TableError(f"{where}: run {entry.get('id', '?')!r} has no {key!r}")
            if not isinstance(entry[key], kind) or isinstance(entry[key], bool):
                raise TableError(f"{where}: {key!r} should be {kind.__name__}, "
                                 f"got {entry[key]!r}")
        rid = entry["id"]
        if rid in seen:
            raise TableError(f"{where}: id {rid!r} already used at line {seen[rid]}")
        seen[rid] = line
        if entry["set"] not in SETS:
            raise TableError(f"{where}: set must be one of {', '.join(SETS)}, "
                             f"got {entry['set']!r}")
        if entry["collective"] not in COLLECTIVES:
            raise TableError(f"{where}: collective {entry['collective']!r} is not one of "
                             f"{', '.join(COLLECTIVES)}")
        compare = entry.get("compare", "busbw_GBps")
        if compare not in ("busbw_GBps", "time_us"):
            raise TableError(f"{where}: compare must be busbw_GBps or time_us, got {compare!r}")
        value = entry.get(compare)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise TableError(f"{where}: run {rid!r} compares {compare} but its value is "
                             f"{value!r} (expected a positive number)")
        if not entry["source"].get("url") or not entry["source"].get("where"):
            raise TableError(f"{where}: run {rid!r}: source needs url and where")
        design = entry.get("design")
        if design is None:
            if not entry.get("design_note"):
                raise TableError(f"{where}: run {rid!r} has design: null without design_note")
        elif not isinstance(design, dict) or "template" not in design:
            raise TableError(f"{where}: run {rid!r}: design needs a template (or null)")
        runs.append(Run(line, entry))
    return runs


def _design_key(design: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, v) for k, v in design.items()
                        if k not in ("algorithm", "sharp", "tuning")))


def compare_runs(runs: list[Run]) -> list[Row]:
    """Simulate each run's design once per (design, algorithm, sharp) and read the figure."""
    takes_sharp = "sharp" in inspect.signature(simulate).parameters
    layouts: dict[Any, Any] = {}
    results: dict[Any, Any] = {}
    rows = []
    for run in runs:
        row = Row(run)
        rows.append(row)
        design = run.data.get("design")
        if design is None:
            row.skipped = run.data["design_note"]
            continue
        key = _design_key(design)
        if key not in layouts:
            options = {k: v for k, v in design.items() if k not in DESIGN_KEYS}
            try:
                layouts[key] = generate(design["template"], **options)
            except GeneratorError as exc:
                layouts[key] = exc
        layout = layouts[key]
        if isinstance(layout, GeneratorError):
            row.skipped = f"cannot generate the design: {layout}"
            continue
        algorithm = design.get("algorithm", "auto")
        sharp = bool(design.get("sharp", False))
        tuning = design.get("tuning")
        rkey = (key, algorithm, sharp, tuning)
        if rkey not in results:
            kwargs: dict[str, Any] = {"algorithm": algorithm}
            if takes_sharp:
                kwargs["sharp"] = sharp
            if tuning is not None:
                kwargs["fabric_tuning"] = tuning
            try:
                results[rkey] = simulate(layout, **kwargs).to_dict()
            except SimulationInputError as exc:
                results[rkey] = exc
        result = results[rkey]
        if isinstance(result, SimulationInputError):
            row.skipped = f"engine refuses algorithm {algorithm!r}: {result}"
            continue
        row.warnings = [d["text"] for d in result.get("diagnostics", ())
                        if d.get("severity") == "warning"]
        coll = run.data["collective"]
        unavailable = [d["text"] for d in result.get("diagnostics", ())
                       if d.get("code") == "algorithm_unavailable"
                       and (d.get("text", "").startswith(coll + ":")
                            or ":" not in d.get("text", "")[:20])]
        if unavailable and algorithm != "auto":
            row.skipped = f"algorithm {algorithm!r} unavailable: {unavailable[0]}"
            continue
        points = result.get("collectives", {}).get(run.data["collective"], [])
        point = next((p for p in points if p.get("bytes") == run.data["size_bytes"]), None)
        if point is None:
            row.skipped = (f"the engine gives no {run.data['collective']} point at "
                           f"{run.data['size_bytes']} bytes")
            continue
        value = point.get(run.compare)
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            row.skipped = f"the engine's {run.compare} is {value!r}"
            continue
        row.simulated = float(value)
        row.domains = int(result.get("scope", {}).get("islands", 1))
        row.transport = result.get("scope", {}).get("transport")
        row.algorithm = "/".join(str(point.get(k)) for k in ("algorithm", "protocol")
                                 if point.get(k))
    return rows


def summary(rows: list[Row]) -> dict[str, Any]:
    """Mean absolute and worst error, overall and for single-/multi-node runs."""
    def stats(selected: list[Row]) -> dict[str, Any]:
        errs = [(abs(r.error_pct), r) for r in selected if r.error_pct is not None]
        if not errs:
            return {"runs": 0, "mean_abs_error_pct": None, "worst_error_pct": None,
                    "worst_id": None}
        worst = max(errs, key=lambda e: e[0])[1]
        return {"runs": len(errs),
                "mean_abs_error_pct": round(sum(e for e, _ in errs) / len(errs), 2),
                "worst_error_pct": round(worst.error_pct, 2), "worst_id": worst.run.id}

    return {"all": stats(rows),
            **{name: stats([r for r in rows if r.run.data["set"] == name]) for name in SETS},
            "single_node": stats([r for r in rows if not r.run.multi_node]),
            "multi_node": stats([r for r in rows if r.run.multi_node]),
            "bandwidth": stats([r for r in rows if r.run.compare == "busbw_GBps"]),
            "latency": stats([r for r in rows if r.run.compare == "time_us"]),
            **{band: stats([r for r in rows if lo <= r.run.data["size_bytes"] < hi])
               for band, lo, hi in SIZE_BANDS},
            "skipped": sum(1 for r in rows if r.skipped)}


def _fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares (intercept, slope) of y = a + b x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return my - b * mx, b


def _tuning(run: Run) -> str:
    from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING

    return str((run.data.get("design") or {}).get("tuning") or DEFAULT_FABRIC_TUNING)


def derive(runs: list[Run]) -> dict[str, float]:
    """Refit the engine's constants that are derived from published runs, on the calibration
    runs only (validation runs are never read here), and return them by name:

    - per-NIC efficiency across domains (transport.yaml, infiniband), for each fabric tuning
      (`<tuning>.nic_efficiency_2_domains` ...): ring/all_gather runs over InfiniBand between
      >= 2 nodes whose design states that tuning, measured / model with every share at 1.0,
      fitted as e2 - d x log2(N / 2); a fit that finds no decline (d < 0) keeps d = 0 and e2 the
      mean (a decline is never negative);
    - RoCE efficiency (transport.yaml, ethernet): Ethernet ring runs, measured / the InfiniBand
      model of the same tuning;
    - EFA share (transport.yaml, efa; one level whatever the tuning): the EFA runs (any
      algorithm NCCL picks), measured / the model with every share at 1.0, fitted like the
      InfiniBand share;
    - multi-node NVLink network share (constants.MNNVL_TREE_NET_NICS): the NVL72 multi-rack runs
      at 16 GiB, per-rack inter-domain rate / (per-NIC rate x its share under the run's tuning);
    - small-message floor (constants.SMALL_MESSAGE_FLOOR_US): per calibration time row, the
      floor f with (f^p + t^p)^(1/p) = measured, t the model without a floor; the median.
    """
    import dataclasses
    import statistics

    from rackdesigner.simulation import constants as C
    from rackdesigner.simulation import transport as T
    from rackdesigner.vocabulary import FABRIC_TUNINGS

    cal = [r for r in runs if r.data["set"] == "calibration"]
    saved = (T.neutral, C.MNNVL_TREE_NET_NICS, C.SMALL_MESSAGE_FLOOR_US)
    out: dict[str, float] = {}
    try:
        T.neutral, C.MNNVL_TREE_NET_NICS, C.SMALL_MESSAGE_FLOOR_US = True, 1e9, 0.0
        ring = [r for r in cal if r.compare == "busbw_GBps" and r.data["nodes"] >= 2
                and (r.data.get("design") or {}).get("algorithm") == "ring"
                and r.data["gpus_per_node"] <= 8]
        ib = [r for r in ring if "Ethernet" not in r.data["fabric"]]
        fitted: dict[str, tuple[float, float, float]] = {}
        for tuning in FABRIC_TUNINGS:
            rows = [row for row in compare_runs([r for r in ib if _tuning(r) == tuning])
                    if row.simulated]
            if not rows:
                continue
            xs = [math.log2(row.run.data["nodes"] / 2) for row in rows]
            ys = [row.run.published / row.simulated for row in rows]
            e2, slope = _fit_line(xs, ys)
            if slope >= 0:  # no decline: the level is the mean share
                e2, slope = statistics.mean(ys), 0.0
            fitted[tuning] = (e2, -slope, min(ys))
            out[f"{tuning}.nic_efficiency_2_domains"] = e2
            out[f"{tuning}.nic_efficiency_per_doubling"] = -slope
            out[f"{tuning}.nic_efficiency_floor"] = min(ys)
        T.neutral = False
        T.families.cache_clear()
        table = T.families()
        for (name, tuning), fam in list(table.items()):
            if name == T.BASE and tuning in fitted:
                table[name, tuning] = dataclasses.replace(fam, **dict(zip(
                    T._KEYS, fitted[tuning], strict=True)))
        eth = [r for r in ring if "Ethernet" in r.data["fabric"] and "EFA" not in r.data["fabric"]]
        if eth:
            roce = T.DEFAULT_TRANSPORT["ethernet"]
            saved_eth = {t: table[roce, t] for t in FABRIC_TUNINGS}
            for t in FABRIC_TUNINGS:  # the InfiniBand model for the Ethernet runs
                table[roce, t] = table[T.BASE, t]
            try:
                rows = [row for row in compare_runs(eth) if row.simulated]
            finally:
                table.update({(roce, t): fam for t, fam in saved_eth.items()})
            out["roce_efficiency"] = statistics.mean(row.run.published / row.simulated
                                                     for row in rows)
        efa = [r for r in cal if "EFA" in r.data["fabric"] and r.compare == "busbw_GBps"]
        if efa:  # the EFA share: measured / the model with every share at 1.0
            T.neutral = True
            try:
                rows = [row for row in compare_runs(efa) if row.simulated]
            finally:
                T.neutral = False
            xs = [math.log2(row.run.data["nodes"] / 2) for row in rows]
            ys = [row.run.published / row.simulated for row in rows]
            e2, slope = _fit_line(xs, ys)
            if slope >= 0:
                e2, slope = statistics.mean(ys), 0.0
            out["efa.nic_efficiency_2_domains"] = e2
            out["efa.nic_efficiency_per_doubling"] = -slope
            out["efa.nic_efficiency_floor"] = min(ys)
        nvl = [r for r in cal if r.data["id"].startswith("gb200nvl72x")
               and r.data["size_bytes"] >= 16 << 30]
        heads = []
        for r in nvl:
            n, racks = r.data["nodes"] * r.data["gpus_per_node"], r.data["nodes"] // 18
            algbw = r.published * n / (2 * (n - 1))
            per_rack = algbw * (2 if racks > 2 else 1)
            fam = table[T.BASE, _tuning(r)]
            heads.append(per_rack / (48.0 * fam.nic_efficiency(racks)))
        if heads:
            out["mnnvl_tree_net_nics"] = statistics.mean(heads)
        times = [r for r in cal if r.compare == "time_us"]
        floors = []
        p = C.SMALL_MESSAGE_OVERLAP_POWER
        for row in compare_runs(times):
            if row.simulated and row.run.published > row.simulated:
                floors.append((row.run.published ** p - row.simulated ** p) ** (1 / p))
        if floors:
            out["small_message_floor_us"] = statistics.median(floors)
    finally:
        T.neutral, C.MNNVL_TREE_NET_NICS, C.SMALL_MESSAGE_FLOOR_US = saved
        T.families.cache_clear()
    return out


def derive_ranges(runs: list[Run]) -> dict[str, Any]:
    """The class spreads of the figures' ranges (rackdesigner/simulation/ranges.py), from the
    VALIDATION runs only: per class, published / simulated at its smallest and largest."""
    from rackdesigner.simulation.ranges import collective_class, derive_spreads

    pairs = []
    for row in compare_runs([r for r in runs if r.data["set"] == "validation"]):
        if row.ratio is None or row.algorithm is None:
            continue
        cls = collective_class(row.algorithm.split("/")[0], row.domains or 1,
                               row.run.data["size_bytes"], row.transport)
        pairs.append((cls, row.ratio))
    return derive_spreads(pairs)


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def format_table(rows: list[Row], totals: dict[str, Any]) -> str:
    head = (f"{'run':<38} {'set':<4} {'coll':<14} {'size':>7} {'GPUs':>5} {'figure':<6} "
            f"{'published':>10} {'simulated':>10} {'error':>8}  engine")
    lines = [head, "-" * len(head)]
    for r in rows:
        d = r.run.data
        figure = "busbw" if r.run.compare == "busbw_GBps" else "us"
        sim = "—" if r.simulated is None else f"{r.simulated:.2f}"
        err = "—" if r.error_pct is None else f"{r.error_pct:+.1f} %"
        tail = r.algorithm or f"skipped: {r.skipped}"
        lines.append(f"{r.run.id:<38} {d['set'][:3]:<4} {d['collective']:<14} "
                     f"{_size(d['size_bytes']):>7} "
                     f"{d['nodes'] * d['gpus_per_node']:>5} {figure:<6} "
                     f"{r.run.published:>10.2f} {sim:>10} {err:>8}  {tail}")
    lines.append("")
    for name in ("all", *SETS, "single_node", "multi_node", "bandwidth", "latency",
                 *(band for band, _, _ in SIZE_BANDS)):
        s = totals[name]
        if s["runs"]:
            lines.append(f"{name:<12} {s['runs']:>3} runs: mean |error| "
                         f"{s['mean_abs_error_pct']:.1f} %, worst {s['worst_error_pct']:+.1f} %"
                         f" ({s['worst_id']})")
    lines.append(f"skipped      {totals['skipped']:>3} runs (reason in the table)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print rows and summary as JSON")
    parser.add_argument("--only", metavar="TEXT", help="runs whose id contains TEXT")
    parser.add_argument("--table", type=Path, default=TABLE, help="published table (YAML)")
    parser.add_argument("--set", choices=SETS, help="only the calibration or validation runs")
    parser.add_argument("--derive", action="store_true",
                        help="refit the derived constants on the calibration runs and print them")
    parser.add_argument("--ranges", action="store_true",
                        help="derive the class spreads of the figures' ranges from the "
                        "validation runs and print them (resources/simulation/ranges.yaml)")
    args = parser.parse_args(argv)
    try:
        runs = load_table(args.table)
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.ranges:
        for name, spread in derive_ranges(runs).items():
            print(f"  {name}: {{lo: {spread.lo:.3f}, hi: {spread.hi:.3f}, runs: {spread.runs}}}")
        return 0
    if args.derive:
        for name, value in derive(runs).items():
            print(f"{name}: {value:.4f}")
        return 0
    if args.only:
        runs = [r for r in runs if args.only in r.id]
    if args.set:
        runs = [r for r in runs if r.data["set"] == args.set]
    rows = compare_runs(runs)
    totals = summary(rows)
    if args.json:
        json.dump({"table": os.path.relpath(args.table, ROOT), "rows": [r.to_dict() for r in rows],
                   "summary": totals}, sys.stdout, indent=2)
        print()
    else:
        print(format_table(rows, totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
