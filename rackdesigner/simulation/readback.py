"""Reading a `rackdesigner.simulation/1` document back into a `SimulationResult`.

What the live panel saves as its baseline and what `simulate --json` prints is the same
document (`SimulationResult.to_dict()`), so either can be loaded back to compare against. The
figures come back as they were written (rounded to the digits of the JSON form). A document of
a newer schema is refused with a clear message; anything that is not such a document raises
`ResultFormatError` saying what is wrong, never a bare KeyError or TypeError.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rackdesigner.model.power import over_budget
from rackdesigner.simulation.collectives import Point
from rackdesigner.simulation.latency import LatencyClass
from rackdesigner.simulation.loads import LinkLoad
from rackdesigner.simulation.nccl_release import DEFAULT_VERSION
from rackdesigner.simulation.power import PowerReport, RackDraw
from rackdesigner.simulation.result import (
    SCHEMA,
    BandwidthInfo,
    LatencyInfo,
    LinkLoadsInfo,
    Message,
    ScopeInfo,
    SimulationResult,
)

SCHEMA_NAME, _, _VERSION = SCHEMA.rpartition("/")
#: A result of a 100,000-GPU design is a few MiB; anything much larger is not one.
MAX_RESULT_BYTES = 64 * 1024 * 1024
VERSION = int(_VERSION)


class ResultFormatError(ValueError):
    """The text is not a simulation result this version can read (the message says why)."""


def _num(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ResultFormatError(f"{where} should be a number, not {value!r}")
    return float(value)


def _opt_num(value: Any, where: str) -> float | None:
    """A number, or None where the result writes null."""
    return None if value is None else _num(value, where)


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ResultFormatError(f"{where} should be a whole number, not {value!r}")
    return value


def _obj(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ResultFormatError(f"{where} should be an object")
    return data


def _get(data: dict[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise ResultFormatError(f"{where}.{key} is missing" if where else f"{key} is missing")
    return data[key]


def result_from_dict(data: Any) -> SimulationResult:
    """Build a `SimulationResult` from its JSON form (`to_dict()`)."""
    data = _obj(data, "the document")
    schema = data.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_NAME + "/"):
        raise ResultFormatError(f"not a RackDesigner simulation result (schema {schema!r}, "
                                f"expected {SCHEMA!r})")
    version = schema.rpartition("/")[2]
    if not version.isdigit() or int(version) > VERSION:
        raise ResultFormatError(f"made by a newer RackDesigner ({schema}); this version reads "
                                f"{SCHEMA}")
    try:
        return _build(data)
    except ResultFormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # shapes we did not check
        raise ResultFormatError(f"malformed simulation result ({type(exc).__name__}: {exc})") \
            from None


def _build(data: dict[str, Any]) -> SimulationResult:
    s = _obj(_get(data, "scope", ""), "scope")
    scope = ScopeInfo(**{k: _int(_get(s, k, "scope"), f"scope.{k}") for k in (
        "gpus", "nodes", "nvlink_domains", "largest_nvlink_domain", "islands",
        "reachable_gpus")}, label=str(s.get("label", "layout")),
        unreachable_gpus=_int(s.get("unreachable_gpus", 0), "scope.unreachable_gpus"),
        transport=str(s["transport"]) if s.get("transport") else None)
    b = _obj(_get(data, "bandwidth", ""), "bandwidth")
    over = _obj(b.get("oversubscription", {}), "bandwidth.oversubscription")
    worst = _obj(b.get("oversubscription_worst", {}), "bandwidth.oversubscription_worst")
    bandwidth = BandwidthInfo(
        per_gpu_scale_up_GBps=_num(_get(b, "per_gpu_scale_up_GBps", "bandwidth"),
                                   "bandwidth.per_gpu_scale_up_GBps"),
        per_gpu_scale_out_GBps=_num(_get(b, "per_gpu_scale_out_GBps", "bandwidth"),
                                    "bandwidth.per_gpu_scale_out_GBps"),
        bisection_GBps=_num(_get(b, "bisection_GBps", "bandwidth"), "bandwidth.bisection_GBps"),
        oversubscription=MappingProxyType({k: _opt_num(v, f"oversubscription.{k}")
                                           for k, v in over.items()}),
        oversubscription_worst=MappingProxyType(
            {k: _opt_num(v, f"oversubscription_worst.{k}") for k, v in worst.items()}),
        fabric_factor=_num(b.get("fabric_factor", 1.0), "bandwidth.fabric_factor"),
        p2p=MappingProxyType(dict(_obj(b.get("p2p", {}), "bandwidth.p2p"))),
        bisection_bottleneck=(None if b.get("bisection_bottleneck") is None
                              else str(b["bisection_bottleneck"])),
        routed_factors=MappingProxyType(
            {k: _num(v, f"routed_factors.{k}") for k, v in
             _obj(b.get("routed_factors", {}), "bandwidth.routed_factors").items()}),
    )
    curves = {}
    for name, points in _obj(_get(data, "collectives", ""), "collectives").items():
        if not isinstance(points, list):
            raise ResultFormatError(f"collectives.{name} should be a list")
        curves[name] = tuple(_point(_obj(p, f"collectives.{name}[{i}]"), f"{name}[{i}]")
                             for i, p in enumerate(points))
    lat = _obj(_get(data, "latency", ""), "latency")
    g2g = _obj(lat.get("gpu_to_gpu_us", {}), "latency.gpu_to_gpu_us")
    latency = LatencyInfo(
        min_us=_opt_num(g2g.get("min"), "latency min"),
        mean_us=_opt_num(g2g.get("mean"), "latency mean"),
        max_us=_opt_num(g2g.get("max"), "latency max"),
        max_hops=_int(lat.get("max_hops", 0), "latency.max_hops"),
        histogram=tuple(_latency_class(_obj(c, "latency.histogram[]"))
                        for c in lat.get("histogram", [])),
        collective_small_us=MappingProxyType(dict(_obj(lat.get("collective_small_us", {}),
                                                       "latency.collective_small_us"))),
        missing_data=tuple(lat.get("missing_latency_data", ())),
    )
    power = _power(_obj(_get(data, "power", ""), "power"))
    messages = tuple(str(m) for m in data.get("messages", ()))
    diagnostics = tuple(Message(str(d["code"]), str(d["severity"]), str(d["text"]))
                        for d in data.get("diagnostics", ()))
    loads = data.get("link_loads")
    return SimulationResult(scope, bandwidth, MappingProxyType(curves), latency, power,
                            messages, str(data.get("algorithm", "auto")), diagnostics,
                            sharp=bool(data.get("sharp", False)),
                            placement=str(data.get("placement", "contiguous")),
                            fabric_tuning=str(data.get("fabric_tuning", "vendor-tuned")),
                            nccl_version=str(data.get("nccl_version", DEFAULT_VERSION)),
                            link_loads=None if loads is None else _link_loads(
                                _obj(loads, "link_loads")))


def _link_loads(d: dict[str, Any]) -> LinkLoadsInfo:
    entries = tuple(
        LinkLoad(str(_get(e, "link", "link_loads.links[]")), str(e.get("a", "")),
                 str(e.get("b", "")), _num(_get(e, "load_GBps", "link_loads.links[]"),
                                           "load_GBps"),
                 _num(_get(e, "capacity_GBps", "link_loads.links[]"), "capacity_GBps"))
        for e in (_obj(x, "link_loads.links[]") for x in d.get("links", ())))
    return LinkLoadsInfo(str(d.get("collective", "")), _int(d.get("bytes", 0), "bytes"),
                         d.get("algorithm"), d.get("pattern"), d.get("bottleneck"),
                         _num(d.get("max_fabric_utilisation", 0.0), "max_fabric_utilisation"),
                         lambda: entries,
                         None if "links" in d else _int(d.get("count", 0), "link_loads.count"))


def _point(p: dict[str, Any], where: str) -> Point:
    return Point(bytes=_int(_get(p, "bytes", where), f"{where}.bytes"),
                 time_us=_num(_get(p, "time_us", where), f"{where}.time_us"),
                 algbw_GBps=_num(_get(p, "algbw_GBps", where), f"{where}.algbw_GBps"),
                 busbw_GBps=_num(_get(p, "busbw_GBps", where), f"{where}.busbw_GBps"),
                 algorithm=str(p.get("algorithm", "")), protocol=str(p.get("protocol", "")))


def _latency_class(c: dict[str, Any]) -> LatencyClass:
    return LatencyClass(name=str(_get(c, "class", "latency.histogram[]")),
                        latency_us=_opt_num(c.get("latency_us"), "latency_us"),
                        pairs=_int(c.get("pairs", 0), "pairs"), hops=_int(c.get("hops", 0),
                                                                          "hops"),
                        complete=bool(c.get("complete", True)),
                        source=str(c.get("source", "device")),
                        link_class=str(c.get("link_class", "net")),
                        physical_us=_opt_num(c.get("physical_us"), "physical_us"))


def _power(p: dict[str, Any]) -> PowerReport:
    total_max = _num(_get(p, "total_max_w", "power"), "power.total_max_w")
    per_gpu = _opt_num(p.get("per_gpu_w"), "power.per_gpu_w")
    gpus = round(total_max / per_gpu) if per_gpu else 0  # not written: what per_gpu_w implies
    return PowerReport(
        total_typical_w=_num(_get(p, "total_typical_w", "power"), "power.total_typical_w"),
        total_max_w=total_max, pue=_num(_get(p, "pue", "power"), "power.pue"), gpus=gpus,
        by_kind=MappingProxyType(dict(_obj(p.get("by_kind", {}), "power.by_kind"))),
        by_kind_typical=MappingProxyType(dict(_obj(p.get("by_kind_typical", {}),
                                                   "power.by_kind_typical"))),
        by_model=MappingProxyType({k: MappingProxyType(dict(_obj(v, f"power.by_model.{k}")))
                                   for k, v in _obj(p.get("by_model", {}),
                                                    "power.by_model").items()}),
        by_rack=MappingProxyType({k: _rack_draw(v, f"power.by_rack.{k}")
                                  for k, v in _obj(p.get("by_rack", {}),
                                                   "power.by_rack").items()}),
        without_power=tuple(p.get("models_without_power", ())),
        optics_in_system_max=_int(p.get("optics_in_system_max", 0),
                                  "power.optics_in_system_max"),
        devices_without_power=_int(p.get("devices_without_power", 0),
                                   "power.devices_without_power"),
        estimated=tuple(p.get("models_with_estimates", ())),
        cable_ends_without_power=_int(p.get("cable_ends_without_power", 0),
                                      "power.cable_ends_without_power"),
    )


def load_result(path: str | Path) -> SimulationResult:
    """Read a saved result (a panel baseline or `simulate --json` output) from `path`.

    Only a regular file of at most MAX_RESULT_BYTES is read (a FIFO would block forever).
    """
    from rackdesigner.io.regular import read_regular

    path = Path(path)
    try:
        raw = read_regular(path, MAX_RESULT_BYTES)
    except OSError as exc:
        raise ResultFormatError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ResultFormatError(f"{path.name} is not a text file") from None
    except json.JSONDecodeError as exc:
        raise ResultFormatError(f"{path.name} is not valid JSON (line {exc.lineno}, column "
                                f"{exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ResultFormatError(f"{path.name} is nested too deeply") from None
    try:
        return result_from_dict(data)
    except ResultFormatError as exc:
        raise ResultFormatError(f"{path.name}: {exc}") from None


__all__ = ["ResultFormatError", "load_result", "result_from_dict"]


def _rack_draw(data: Any, where: str) -> RackDraw:
    """One rack's row; a file from before budgets had sources reads as "none"."""
    d = _obj(data, where)
    budget = _opt_num(d.get("budget_w"), f"{where}.budget_w")
    peak = _num(d.get("max_w", 0.0), f"{where}.max_w") or 0.0
    util = _opt_num(d.get("utilisation"), f"{where}.utilisation")
    over = d.get("over_budget")
    return RackDraw(peak, _num(d.get("typical_w", 0.0), f"{where}.typical_w") or 0.0, budget,
                    str(d.get("budget_source", "none")), str(d.get("budget_basis", "")),
                    util if util is not None or not budget else round(peak / budget, 4),
                    over if isinstance(over, bool) else over_budget(peak, budget))
