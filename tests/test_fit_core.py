"""`fit` past one spine layer: a mix whose leaves exceed one spine layer is built as pods
joined by a core (one pod per type) when each type fits a pod, instead of being left out."""

from __future__ import annotations

import pytest

from rackdesigner.fit.parts import PartKey, build_part, design_figures
from rackdesigner.fit.search import _combine, build_candidate, real_candidate
from rackdesigner.model import Site, check_layout

SYSTEMS = ("dgx-b200", "dgx-h100", "gb200-nvl72")
COUNTS = {"dgx-b200": 128, "dgx-h100": 128, "gb200-nvl72": 8}  # 32 + 32 + 20 QM9700 leaves


@pytest.fixture(scope="module")
def measured():
    out = {}
    for system, n in COUNTS.items():
        key = PartKey(system, n, "qm9700", 1.0)
        out[key] = {"key": key, "error": None, **design_figures(build_part(key))}
    return out


def test_a_mix_past_one_spine_layer_becomes_pods_joined_by_a_core(measured):
    site = Site(facility_power_kw=20_000)
    grids = {s: [n] for s, n in COUNTS.items()}
    candidates = _combine(site, None, SYSTEMS, grids, ("qm9700",), (1.0,), measured, False)
    by_types = {tuple(s for s, _ in c.counts): c for c in candidates}
    assert by_types[("dgx-b200", "gb200-nvl72")].fabric == "spine"  # 52 leaves: one layer
    three = by_types[("dgx-b200", "dgx-h100", "gb200-nvl72")]  # 84 leaves > 64
    assert three.fabric == "core" and three.pods == "dgx-b200:128/dgx-h100:128/gb200-nvl72:8"
    layout = build_candidate(three, cdus=1)
    spines = [d for d in layout.devices() if d.id.startswith("spine-")]
    cores = [d for d in layout.devices() if d.id.startswith("core-")]
    assert spines and cores
    assert not [f for f in check_layout(layout) if f.severity == "error"]
    real = real_candidate(site, None, three)  # checked and priced on the real design
    assert real.verified and real.feasible
    assert real.gpus == three.gpus
    assert real.capex > three.capex  # the core's switches cost what screening left out
