"""What the estimator derives from a design, kept per design state: the engine's topology
(`GroupCollectives`), the power report, and per scope (the GPUs in rank order) the group
figures, wiring signatures and contention peaks of the estimates made on it. The engine's
figures depend on the fabric tuning the cluster runs (`vocabulary.FABRIC_TUNINGS`), so each
tuning has its own `GroupCollectives` and its own scopes; the topology under them is the
state's one (`simulation.stages`: the engine structure is built once per state).

A design state is immutable (model/state.py), so everything derived from it stays valid while
it lives: a second estimate on the same design — another batch in the Workload tab, the next
job of a sweep point, a search — reads the topology and the engine figures the first one
built, instead of rebuilding a 16k-GPU topology (most of a cold estimate's time). Only the two
most recent states are kept (an edited design is a new state; the undo history's states keep
nothing here), each held weakly: a state nobody uses any more takes its entry with it.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.model import Layout
from rackdesigner.simulation import GroupCollectives
from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING

#: Design states whose derived values are kept (the current one and the one before it).
KEEP = 2


@dataclass
class _Entry:
    state: weakref.ref
    catalog: Any
    groups: dict[str, GroupCollectives]  # by fabric tuning
    scopes: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = field(default_factory=dict)
    power: dict[Any, Any] = field(default_factory=dict)


_RECENT: OrderedDict[int, _Entry] = OrderedDict()


def design_groups(layout: Layout, fabric_tuning: str | None = None) -> GroupCollectives:
    """The engine's group figures on `layout`'s current state under `fabric_tuning` (default:
    the vocabulary's), built once per state and tuning. An unknown tuning raises
    `GroupError`."""
    tuning = fabric_tuning or DEFAULT_FABRIC_TUNING
    state = layout.state
    key = id(state)
    entry = _RECENT.get(key)
    if entry is None or entry.state() is not state or entry.catalog is not layout.catalog:
        def forget(_ref: weakref.ref, k: int = key) -> None:
            _RECENT.pop(k, None)

        entry = _Entry(weakref.ref(state, forget), layout.catalog, {})
        _RECENT[key] = entry
        while len(_RECENT) > KEEP:
            _RECENT.popitem(last=False)
    else:
        _RECENT.move_to_end(key)
    groups = entry.groups.get(tuning)
    if groups is None:
        groups = entry.groups[tuning] = GroupCollectives(layout, fabric_tuning=tuning)
    return groups


def _entry_of(groups: GroupCollectives) -> _Entry | None:
    for entry in list(_RECENT.values()):
        if entry.groups.get(groups.fabric_tuning) is groups:
            return entry
    return None


def scope_cache(groups: GroupCollectives, gpus: list[str]) -> dict[str, Any]:
    """A store for what estimates on these GPUs of this design compute (shared by every
    estimator of the same state and scope; a private one for a topology built elsewhere)."""
    entry = _entry_of(groups)
    if entry is None:
        return {}
    return entry.scopes.setdefault((groups.fabric_tuning, tuple(gpus)), {})


def power_cache(groups: GroupCollectives) -> dict[Any, Any]:
    """A store for the design's power reports (by the devices counted and the PUE)."""
    entry = _entry_of(groups)
    return {} if entry is None else entry.power


def clear() -> None:
    """Forget every kept design (tests, and benchmarks that time a cold estimate)."""
    _RECENT.clear()


__all__ = ["KEEP", "clear", "design_groups", "power_cache", "scope_cache"]
