"""`power_of`'s pass over the devices of a whole large design, per model instead of per device.

A design of 100,000 GPUs has about 356,000 devices of a few dozen models: what a device draws,
whether it counts as a GPU or a rack and its kind all follow from its model, so they are worked
out once per model. The sums are the plain pass's to the bit: every running sum (per model, per
kind, the totals) adds the same values in the same device order, as NumPy's cumulative sum does
(`np.cumsum` adds one element after the other, unlike `np.sum`'s pairwise reduction), starting
from 0.0 as the plain pass's dictionaries do (tests/test_power_sums.py). What needs a device's
place in the design — whether a device of a model with no power figure is covered by its
system's published maximum — is asked of those devices only (`power_of` answers from the link
table's columns when it has them, `model/power_columns.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.power import device_draw

if TYPE_CHECKING:
    import numpy as np

#: Designs with at least this many devices of known models take the per-model pass (below it
#: NumPy is not imported: a small design's `simulate` stays free of it, tests/test_cli_imports).
ARRAY_MIN_DEVICES = 5_000


@dataclass
class DeviceSums:
    """What `power_of`'s device pass gathers (the same names it uses)."""

    gpus: int = 0
    racks: set[str] = field(default_factory=set)
    estimated: set[str] = field(default_factory=set)
    without: set[str] = field(default_factory=set)
    missing: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    model_t: dict[str, float] = field(default_factory=dict)
    model_m: dict[str, float] = field(default_factory=dict)
    by_kind: dict[str, float] = field(default_factory=dict)
    by_kind_t: dict[str, float] = field(default_factory=dict)
    total_t: float = 0.0
    total_m: float = 0.0


def device_sums(specs: Mapping[str, DeviceSpec],
                covered: Callable[[np.ndarray], Any]) -> DeviceSums | None:
    """The device pass of `power_of` over every device of `specs`, per model; None when the
    plain pass should run instead (a small design, or two spec objects of one model id).
    `covered` says of the devices at some places of `specs` (their numbers in its order)
    whether their system's published maximum covers each."""
    if len(specs) < ARRAY_MIN_DEVICES:
        return None
    import numpy as np

    ids = list(specs)
    values = list(specs.values())
    from rackdesigner.model.power_columns import Numbers, running

    number = Numbers()  # each spec object's number, in order of its first device
    codes = np.fromiter(map(number.__getitem__, map(id, values)), dtype=np.int64,
                        count=len(values))
    first = np.full(len(number), len(values), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(values)))
    models = [values[i] for i in first.tolist()]
    if len({spec.id for spec in models}) != len(models):
        return None
    out = DeviceSums()
    n = np.bincount(codes, minlength=len(models)).tolist()
    drawing = np.zeros(len(models), dtype=bool)
    typical_of = np.zeros(len(models))
    peak_of = np.zeros(len(models))
    for c, spec in enumerate(models):
        does = spec.traits
        if does.computes:
            out.gpus += n[c]
        elif does.contains == "units":
            out.racks.update(ids[i] for i in np.flatnonzero(codes == c).tolist())
            continue
        elif not does.draws_power:
            continue
        drawing[c] = True
        typical_of[c], peak_of[c] = device_draw(spec)
    # in order of each model's first device, as the plain pass meets them
    order = sorted(np.flatnonzero(drawing).tolist(), key=lambda c: first[c])
    for c in order:
        spec = models[c]
        model = spec.id
        if spec.power.basis == "estimate":
            out.estimated.add(model)
        if spec.power.typical_w is None and spec.power.max_w is None:
            flags = covered(np.flatnonzero(codes == c))
            bare = len(flags) - int(np.count_nonzero(flags))
            if bare:
                out.without.add(model)
                out.missing += bare
        out.counts[model] = n[c]
        out.model_t[model] = running(np.full(n[c], typical_of[c]))
        out.model_m[model] = running(np.full(n[c], peak_of[c]))
    on = drawing[codes]
    typical, peak = typical_of[codes][on], peak_of[codes][on]
    out.total_t, out.total_m = running(typical), running(peak)
    kinds = list(dict.fromkeys(models[c].kind for c in order))
    kind_code = np.array([kinds.index(spec.kind) if drawing[c] else -1
                          for c, spec in enumerate(models)])[codes][on]
    for k, kind in enumerate(kinds):
        chosen = kind_code == k
        out.by_kind[kind] = running(peak[chosen])
        out.by_kind_t[kind] = running(typical[chosen])
    return out
