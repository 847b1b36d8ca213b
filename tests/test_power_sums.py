"""The power report of a whole large design summed per model (simulation/power_sums.py) equals
the plain per-device pass to the bit: totals, per model, per kind (in the same key order), GPUs,
racks, devices without a figure and labelled estimates — on generated designs, on broken ones
and on designs whose specs lack figures or are estimates; a scoped report and a small design keep
the plain pass."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from rackdesigner.generators import generate
from rackdesigner.model.power_columns import running
from rackdesigner.simulation import power_sums
from rackdesigner.simulation.power import power_of
from rackdesigner.simulation.power_sums import device_sums
from rackdesigner.simulation.topology import Topology
from tests.test_linktable import _broken

#: generated designs the power tests share (tests/test_power_columns.py too)
GENERATED = [
    lambda c: generate("superpod", system="dgx-h100", nodes=64, catalog=c),  # a 2-SU SuperPOD
    lambda c: generate("rail-optimized", system="dgx-b200", nodes=16, switch="q3400", catalog=c),
    lambda c: generate("nvl72", catalog=c),
]
DESIGNS = [
    *GENERATED,
    lambda c: _broken(c, 0),
    lambda c: _broken(c, 3),
]


def _report(layout, specs, threshold: int, monkeypatch, devices=None):
    monkeypatch.setattr(power_sums, "ARRAY_MIN_DEVICES", threshold)
    return power_of(layout, specs, devices, 1.25)


def _same(layout, specs, monkeypatch, devices=None) -> None:
    plain = _report(layout, specs, 10**12, monkeypatch, devices)
    fast = _report(layout, specs, 0, monkeypatch, devices)
    assert repr(fast) == repr(plain)  # every float, and every mapping's key order
    assert fast.to_dict() == plain.to_dict()
    assert list(fast.by_kind) == list(plain.by_kind)


@pytest.mark.parametrize("number", range(len(DESIGNS)))
def test_per_model_sums_are_the_plain_pass(number, catalog, monkeypatch):
    layout = DESIGNS[number](catalog)
    specs = Topology.build(layout).specs
    monkeypatch.setattr(power_sums, "ARRAY_MIN_DEVICES", 0)
    assert device_sums(specs, lambda at: [False] * len(at)) is not None  # the per-model pass
    _same(layout, specs, monkeypatch)


def test_models_without_figures_and_estimates_are_counted_alike(catalog, monkeypatch):
    """Some devices' models with no power figure (a GPU of a node whose system states its
    maximum is covered by it, a switch is not) and some labelled estimates, mixed into the
    device order: the same devices without a figure, the same estimate list, the same sums."""
    layout = generate("superpod", system="dgx-h100", nodes=32, catalog=catalog)
    specs = dict(Topology.build(layout).specs)
    rng = random.Random(7)
    by_model: dict[str, object] = {}
    for device, spec in list(specs.items()):
        pick = rng.random()
        if pick < 0.05 and spec.power is not None:
            none = dataclasses.replace(spec.power, typical_w=None, max_w=None)
            specs[device] = by_model.setdefault(f"{spec.id}/none", dataclasses.replace(
                spec, id=f"{spec.id}-no-figure", power=none))
        elif pick < 0.1 and spec.power is not None:
            guess = dataclasses.replace(spec.power, basis="estimate",
                                        typical_w=(spec.power.typical_w or 0.0) + 0.1)
            specs[device] = by_model.setdefault(f"{spec.id}/guess", dataclasses.replace(
                spec, id=f"{spec.id}-guess", power=guess))
    plain = _report(layout, specs, 10**12, monkeypatch)
    assert plain.devices_without_power > 0 and plain.estimated and plain.without_power
    _same(layout, specs, monkeypatch)


def test_two_spec_objects_of_one_model_keep_the_plain_pass(catalog, monkeypatch):
    monkeypatch.setattr(power_sums, "ARRAY_MIN_DEVICES", 0)
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    specs = dict(Topology.build(layout).specs)
    device, spec = next(iter(specs.items()))
    specs[device] = dataclasses.replace(spec)  # equal, but another object of the same id
    assert device_sums(specs, lambda at: [False] * len(at)) is None


def test_a_scoped_report_and_a_small_design_keep_the_plain_pass(catalog, monkeypatch):
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    specs = Topology.build(layout).specs
    monkeypatch.setattr(power_sums, "ARRAY_MIN_DEVICES", len(specs) + 1)
    assert device_sums(specs, lambda at: [False] * len(at)) is None
    some = [d for d in specs][: len(specs) // 3]
    _same(layout, specs, monkeypatch, devices=some)


def test_running_sums_add_in_order_as_python_does():
    """`np.cumsum` adds one value after the other, so its last value is Python's running sum
    (`np.sum` would pair values up and differ in the last bits)."""
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 1000, 100_003):
        values = rng.uniform(0, 2000, size) * rng.choice([1e-3, 1.0, 1e3], size)
        total = 0.0
        for v in values.tolist():
            total += v
        assert running(values) == total
    assert running(np.zeros(0)) == 0.0
