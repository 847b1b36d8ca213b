"""`rackdesigner catalog`: list the device catalog as a table or as JSON."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rackdesigner import vocabulary
from rackdesigner.catalog import KINDS, CatalogError, DeviceSpec, default_catalog
from rackdesigner.vocabulary.wording import counted

_PROTOCOL_NAMES = {p.name: p.short for p in vocabulary.PROTOCOLS.values()}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "catalog", help="list the device catalog, check or import your own models",
        description="List every device model: the shipped catalog plus your own (marked "
        "[user]; see --catalog DIR). 'catalog --check DIR' validates a folder of your own "
        "models; 'catalog import-netbox' turns NetBox device types into models.")
    parser.add_argument("--kind", choices=KINDS, help="only devices of this kind")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument("--check", metavar="DIR", nargs="+",
                        help="validate user catalog folders (every problem as file: key: "
                        "message); exit 0 when valid, 2 otherwise")
    parser.set_defaults(run=run)
    from rackdesigner.cli.catalog_import_cmd import register_import

    register_import(parser)


def ports_summary(spec: DeviceSpec) -> str:
    """'18x NVLink4 200G, 1x PCIe Gen5 x16' — per-direction rates."""
    parts = []
    for g in spec.ports:
        name = _PROTOCOL_NAMES.get(g.protocol, g.protocol)
        if g.protocol == "pcie":
            parts.append(f"{g.count}x {name} {g.generation} x{g.lanes}")
        elif g.protocol == "ethernet" and g.generation.endswith("GbE"):
            parts.append(f"{g.count}x {g.generation}")
        else:
            sep = "" if g.protocol == "nvlink" else " "
            parts.append(f"{g.count}x {name}{sep}{g.generation} {_rate(g.rate_gbps)}")
    return ", ".join(parts)


def _rate(gbps: float) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 and gbps % 1000 == 0 else f"{gbps:g}G"


def _watts(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _power_column(spec: DeviceSpec) -> str:
    """Typical/max watts; a system shows its published maximum, a cable its power per end."""
    max_w = spec.power.max_w
    if max_w is None and spec.stated is not None:
        max_w = spec.stated.values.get("max_w")
    if spec.cable is not None and spec.power.max_w is None:
        return f"{_watts(spec.cable.power_w_per_end)} per end"
    if spec.rack is not None:
        return f"default budget {spec.rack.power_budget_w / 1000:g} kW"
    if spec.power.basis == "facility":  # infrastructure: its energy is in the PUE
        return "0 (facility)"
    return f"{_watts(spec.power.typical_w)}/{_watts(max_w)}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def as_dict(spec: DeviceSpec) -> dict[str, Any]:
    return {
        "id": spec.id,
        "kind": spec.kind,
        "manufacturer": spec.manufacturer,
        "model": spec.model,
        "u_height": spec.u_height,
        "ports": [{"name": g.name, "protocol": g.protocol, "generation": g.generation,
                   "count": g.count, "lanes": g.lanes, "rate_gbps": g.rate_gbps,
                   "connector": g.connector} for g in spec.ports],
        "power": {"idle_w": spec.power.idle_w, "typical_w": spec.power.typical_w,
                  "max_w": spec.power.max_w, "basis": spec.power.basis},
        "parts": ([{"name": p.name, "model": p.model, "count": p.count}
                   for p in spec.system.parts] if spec.system else []),
        "user": spec.is_user,
        **({"rack": {"height_u": spec.rack.height_u,
                     "default_power_budget_w": spec.rack.power_budget_w,
                     "budget_basis": spec.rack.budget_basis}} if spec.rack else {}),
    }


def run(args: argparse.Namespace) -> int:
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.io.sanitize import shown

    if args.check:
        return _check(args.check)
    try:
        catalog = default_catalog()
    except CatalogError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    specs = [s for s in catalog if args.kind is None or s.kind == args.kind]
    if args.json:
        print(json_text([as_dict(s) for s in specs]))
        return 0
    rows = [("ID", "KIND", "MODEL", "PORTS", "POWER TYP/MAX W")]
    for s in specs:
        summary = ports_summary(s)
        if s.system:
            summary = ", ".join(f"{p.count}x {p.model}" for p in s.system.parts)
        model = _clip(shown(s.model), 40) + (" [user]" if s.is_user else "")
        rows.append((shown(s.id), s.kind, model, shown(summary), _power_column(s)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4])
    return 0


def _check(dirs: list[str]) -> int:
    from pathlib import Path

    from rackdesigner.catalog.user import check_dirs

    problems, specs = check_dirs([Path(d) for d in dirs])
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{counted(len(problems), 'problem')} in {', '.join(dirs)}", file=sys.stderr)
        return 2
    bundled = {s.id for s in default_bundled()}
    for spec in specs:
        verb = "overrides the shipped model" if spec.id in bundled else "adds"
        print(f"{spec.file}: ok: {verb} {spec.id} ({spec.kind}, {spec.model})")
    print(f"{counted(len(specs), 'model')} valid in {', '.join(dirs)}")
    return 0


def default_bundled() -> list[DeviceSpec]:
    from rackdesigner.catalog import bundled_catalog

    return list(bundled_catalog())
