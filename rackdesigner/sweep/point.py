"""One sweep point, start to finish: build the design, check it, simulate it, take figures.

`evaluate_point` is the Dask task. It never raises: a point that cannot be built or simulated
comes back as a row with `status: failed` and the error, so one bad combination never costs the
rest of a sweep. The same `build_point_layout` is what the GUI calls to open a point's design
(generators are deterministic, so the design opened is the design measured).
"""

from __future__ import annotations

import fnmatch
import logging
from typing import Any

from rackdesigner.sweep.spec import Edit, SweepSpec
from rackdesigner.units import size_label

log = logging.getLogger(__name__)

OK = "ok"
INVALID = "invalid"  # built and simulated, but the design rules report errors
FAILED = "failed"  # could not be built or simulated: figures are empty, `error` says why
HEADLINE = ("gpus", "switches", "links", "cables", "transceivers", "racks", "power_max_w",
            "power_typical_w", "bisection_GBps", "per_gpu_scale_out_GBps")
TRAILER = ("design_errors", "design_warnings", "status", "error")


def figure_columns(spec: SweepSpec) -> list[str]:
    """The figure columns of a spec's results (after its parameters), in order."""
    from rackdesigner.sweep.cost import COST_COLUMNS, JOB_COST_COLUMNS
    from rackdesigner.sweep.estimate import ESTIMATE_COLUMNS
    from rackdesigner.sweep.reliability import JOB_RELIABILITY_COLUMNS, RELIABILITY_COLUMNS

    columns = list(HEADLINE)
    columns += busbw_columns(spec)
    columns += COST_COLUMNS
    columns += RELIABILITY_COLUMNS
    if spec.workload is not None:
        columns += ESTIMATE_COLUMNS
        columns += JOB_COST_COLUMNS
        columns += JOB_RELIABILITY_COLUMNS
    if spec.serve is not None:
        from rackdesigner.sweep.serve import SERVE_COLUMNS

        columns += SERVE_COLUMNS
    return columns + list(TRAILER)


def busbw_columns(spec: SweepSpec) -> list[str]:
    """`all_reduce_busbw_GBps` for 1 GiB, `<collective>_busbw_GBps_<size>` otherwise."""
    out = []
    for collective in spec.collectives:
        for size in spec.sizes:
            suffix = "" if size == 1 << 30 else f"_{size_label(size)}"
            out.append(f"{collective}_busbw_GBps{suffix}")
    return out


def build_point_layout(spec: SweepSpec, params: dict[str, Any], catalog: Any = None):
    """The design of one point (a generated template, or the base layout with its edits)."""
    if spec.template is not None:
        from rackdesigner.generators import generate

        return generate(spec.template, catalog, **params)
    from rackdesigner.io import parse_layout_text

    assert spec.base_text is not None
    layout = parse_layout_text(spec.base_text, spec.base_label, catalog)
    for edit in spec.edits:
        apply_edit(layout, edit, params)
    return layout


def apply_edit(layout: Any, edit: Edit, params: dict[str, Any]) -> None:
    patterns = [m.format(**params) for m in edit.match]
    ids = [d.id for d in layout.devices()
           if any(fnmatch.fnmatchcase(d.id, p) for p in patterns)]
    if not ids:
        raise ValueError(f"{edit.kind}: no device matches {', '.join(patterns)}")
    if edit.kind == "remove":
        # the designer's Delete: links go along, devices in a removed rack are unracked
        from rackdesigner.commands.edits import RemoveItems

        RemoveItems(devices=ids).apply(layout)
    else:
        model = edit.model.format(**params)
        for device_id in ids:
            layout.update_device(device_id, model=model)


def evaluate_point(spec: SweepSpec, index: int, params: dict[str, Any]) -> dict[str, Any]:
    """The result row of one point (never raises; see the module docstring)."""
    row: dict[str, Any] = {"point": index, **params}
    for column in figure_columns(spec):
        row[column] = None
    try:
        layout = build_point_layout(spec, params)
        row.update(_figures(spec, layout))
    except Exception as exc:  # a failed point is data, not a crash
        if _expected(exc):  # the design cannot be built or measured: the row says why
            log.debug("sweep point %d failed", index, exc_info=True)
        else:  # a bug: its traceback where someone will see it
            log.warning("sweep point %d failed with an unexpected error", index, exc_info=True)
        row["status"] = FAILED
        row["error"] = _describe(exc)
    return row


def _figures(spec: SweepSpec, layout: Any) -> dict[str, Any]:
    from rackdesigner.bom import bill_of_materials
    from rackdesigner.model import ERROR, check_layout
    from rackdesigner.simulation import simulate

    out: dict[str, Any] = {}
    kinds, _ = layout.index().counts()  # devices per kind, as the status bar counts them
    findings = check_layout(layout)
    errors = [f for f in findings if f.severity == ERROR]
    result = simulate(layout, algorithm=spec.algorithm)
    bom = bill_of_materials(layout)
    out["gpus"] = result.scope.gpus
    out["switches"] = kinds.get("switch", 0)
    out["links"] = layout.link_count()
    out["cables"] = bom.cable_count()
    out["transceivers"] = sum(t.count for t in bom.transceivers)
    out["racks"] = kinds.get("rack", 0)
    out["power_max_w"] = _round(result.power.total_max_w, 1)
    out["power_typical_w"] = _round(result.power.total_typical_w, 1)
    out["bisection_GBps"] = _round(result.bandwidth.bisection_GBps)
    out["per_gpu_scale_out_GBps"] = _round(result.bandwidth.per_gpu_scale_out_GBps)
    columns = iter(busbw_columns(spec))
    for collective in spec.collectives:
        for size in spec.sizes:
            point = result.point_at(collective, size)
            out[next(columns)] = _round(point.busbw_GBps) if point is not None else None
    estimate = None
    if spec.workload is not None:
        from rackdesigner.sweep.estimate import estimate_columns

        estimate = estimate_columns(layout, spec.workload)
        out.update(estimate)
    from rackdesigner.sweep.cost import cost_columns

    out.update(cost_columns(layout, spec, estimate))
    if spec.serve is not None:
        from rackdesigner.sweep.serve import serve_columns

        out.update(serve_columns(layout, spec.serve, out.get("usd_per_gpu_hour")))
    from rackdesigner.sweep.reliability import reliability_columns

    out.update(reliability_columns(layout, spec.workload, estimate))
    out["design_errors"] = len(errors)
    out["design_warnings"] = len(findings) - len(errors)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        out["status"] = INVALID
        out["error"] = f"{errors[0].message}{more}"
    else:
        out["status"] = OK
        out["error"] = None
    return out


def _round(value: float | None, digits: int = 3) -> float | None:
    if value is None or value != value or value in (float("inf"), float("-inf")):
        return None
    return round(float(value), digits)


def _expected(exc: BaseException) -> bool:
    """A failure the design or the spec explains (a generator refusing its options, a model
    not in the catalog, a job that does not fit): anything else is a bug."""
    return isinstance(exc, ValueError | KeyError)  # GeneratorError is a ValueError


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if _expected(exc):
        return text.strip("'\"") if isinstance(exc, KeyError) else text
    return f"{type(exc).__name__}: {text}"
