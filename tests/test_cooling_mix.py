"""The design's cooling mix without a whole cooling report (issue 38 item 19): `simulate`'s
default PUE reads only the heat to water and to air, which `model.pue.cooling_mix` works out
once per (model, system) pair; it must equal the report's, to the last bit, on every kind of
design (generated SuperPODs air- and liquid-cooled, mixed ones with CDUs, the bundled examples,
a device whose model the catalog lacks, and a rear door, where the report is made)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.generators import generate
from rackdesigner.io import load_layout
from rackdesigner.model import Device
from rackdesigner.model.cooling import cooling_report
from rackdesigner.model.pue import cooling_mix, design_pue
from rackdesigner.model.site import pue_for_cooling

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "resources" / "examples")
                  .glob("*.yaml"))
GENERATED = [
    ("superpod", {"system": "dgx-h100", "sus": 2}),
    ("superpod", {"system": "gb200-nvl72", "racks": 3}),
    ("mixed", {"systems": "gb200-nvl72:4,dgx-b200:8", "cdus": 1,
               "cdu": "vertiv-xdu1350"}),
    ("rail-optimized", {"system": "dgx-b200", "nodes": 64, "switch": "q3400"}),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 64}),
]


def _same_as_report(layout) -> None:
    report = cooling_report(layout)
    mix = cooling_mix(layout)
    assert mix is not None
    assert mix == (report.liquid_w, report.air_w)  # bit for bit: the PUE is printed
    assert design_pue(layout) == pue_for_cooling(report.liquid_w, report.air_w)


@pytest.mark.parametrize(("name", "options"), GENERATED, ids=[g[0] for g in GENERATED])
def test_the_mix_of_a_generated_design_is_its_reports(name, options):
    _same_as_report(generate(name, **options))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_mix_of_each_example_is_its_reports(path):
    _same_as_report(load_layout(path))


def test_a_device_of_an_unknown_model_and_a_failed_su_keep_the_mix_the_reports():
    from rackdesigner.model.failures import closure, degraded

    layout = generate("superpod", system="gb200-nvl72", racks=2)
    broken = degraded(layout, closure(layout, ("su-1",) if layout.has_id("su-1")
                                      else (next(iter(layout.devices())).id,)))
    _same_as_report(broken)
    layout.add_device(Device("mystery-1", "no-such-model"))
    _same_as_report(layout)


def test_a_rear_door_leaves_the_mix_to_the_report():
    layout = generate("dgx-b200")
    rack = next(d.id for d in layout.devices() if d.model.startswith("rack"))
    before = design_pue(layout)
    layout.add_device(Device("rdhx-1", "ibm-rdhx", props=(("serves", (rack,)),)))
    assert cooling_mix(layout) is None
    report = cooling_report(layout)
    assert report.door_w > 0
    # the door moves air heat into water: the design's PUE is the report's, and not higher
    assert design_pue(layout) == pue_for_cooling(report.liquid_w, report.air_w)
    assert design_pue(layout)[0] <= before[0]


def _per_device(layout):
    """The report's heat to liquid per rack and the design's, device by device (no table)."""
    from collections import defaultdict

    from rackdesigner.model.cooling import _Splitter
    from rackdesigner.model.power import device_draw

    split = _Splitter(layout)
    per_rack: dict[str, float] = defaultdict(float)
    liquid = 0.0
    for device in layout.devices():
        spec = split.spec(device.model)
        if spec is None or spec.rack is not None or not spec.traits.draws_power:
            continue
        peak = device_draw(spec)[1]
        if peak:
            share = split.fraction(device, spec) * peak
            liquid += share
            if share and device.rack is not None:
                per_rack[device.rack] += share
    return liquid, per_rack


@pytest.mark.parametrize(("name", "options"), GENERATED[1:3], ids=["nvl72", "mixed"])
def test_the_reports_per_model_table_gives_each_devices_own_heat(name, options):
    """`cooling_report` reads each device's heat from a table per (model, system): the same
    sums as reading every device on its own, per rack and in all."""
    layout = generate(name, **options)
    liquid, per_rack = _per_device(layout)
    report = cooling_report(layout)
    assert liquid > 0 and report.liquid_w == liquid
    from rackdesigner.model.power import RackPower

    by_rack = RackPower(layout).draws().by_rack
    for rack, heat in report.racks.items():  # a rack's liquid heat is at most its draw
        assert heat.liquid_w == min(per_rack.get(rack, 0.0), by_rack.get(rack, (0, 0))[1])
