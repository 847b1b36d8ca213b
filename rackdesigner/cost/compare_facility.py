"""The facility rows of a comparison (`cost/compare.py`): what a planner asks of the building
before the network — racks against the floor's positions, the share of the site's power and
cooling each design takes (when its file states a site, `model/site.py`'s `SiteUse`, the same
figures `validate` and the Cost tab read), the design-rule problems `validate` finds, and capex
per GPU.

Shares of a site describe a design rather than rank it (a design that takes more of the site
may simply hold more GPUs), so those rows have no winner; problems and capex per GPU do: fewer
and cheaper win. A row that no design has a figure for (no design states a site) is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rackdesigner.model.site import SiteUse

#: (key, label, the `SiteUse` share): each added when at least one design's site states it
SHARES: tuple[tuple[str, str, str], ...] = (
    ("site_power_percent", "of the site's IT power", "power_share"),
    ("site_facility_power_percent", "of the site's facility power", "facility_share"),
    ("site_cooling_percent", "of the site's cooling", "cooling_share"),
    ("site_liquid_percent", "of the site's liquid loop", "liquid_share"),
    ("site_air_percent", "of the site's air cooling", "air_share"),
)


def problems(layout: Any) -> tuple[int, int]:
    """(errors, warnings) of the design rules, as `validate` counts them."""
    from rackdesigner.model import ERROR, check_layout

    findings = check_layout(layout)
    errors = sum(1 for f in findings if f.severity == ERROR)
    return errors, len(findings) - errors


def facility_rows(designs: Sequence[Any], row: Callable[..., Any],
                  lower: Callable[[Any], bool]) -> list[Any]:
    """The rows, built with `compare`'s own row builder (`row(key, label, unit, better,
    value, money=, bound=)`) so the CLI and the designer show one table."""

    def site(d: Any) -> SiteUse:
        return d.cost.cooling.site

    def floor(d: Any) -> float | None:
        s = site(d)
        return 100 * s.racks / s.rack_positions if s.rack_positions else None

    def percent(name: str) -> Callable[[Any], float | None]:
        def value(d: Any) -> float | None:
            share = getattr(site(d), name)
            return None if share is None else 100 * share
        return value

    rows = [row("racks", "racks", "", None, lambda d: site(d).racks)]
    optional = [row("floor_positions_percent", "of the floor's rack positions", "%", None,
                    floor)]
    optional += [row(key, label, "%", None, percent(name)) for key, label, name in SHARES]
    rows += [r for r in optional if any(v is not None for v in r.values)]
    rows.append(row("capex_per_gpu", "capex per GPU", "", "low",
                    lambda d: d.cost.capex.total / d.gpus if d.gpus else None, money=True,
                    bound=lower))
    rows += [
        row("problem_errors", "design-rule errors", "", "low",
            lambda d: None if d.problems is None else d.problems[0]),
        row("problem_warnings", "design-rule warnings", "", "low",
            lambda d: None if d.problems is None else d.problems[1]),
    ]
    return rows


__all__ = ["SHARES", "facility_rows", "problems"]
