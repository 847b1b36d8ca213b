"""Two pods joined by a core (`generate pods`): each pod on its own leaf/spine layer, a core
tier between them; the simulation reads bisection across the core, and each pod's own figure
does not depend on the core."""

from __future__ import annotations

import pytest

from rackdesigner.generators import GeneratorError, generate
from rackdesigner.model import Site, check_layout
from rackdesigner.model.cooling import cooling_report
from rackdesigner.simulation import simulate


def _pod(layout, device_id: str) -> str | None:
    group = layout.device(device_id).group
    while group is not None and not group.startswith("pod-"):
        group = layout.group(group).parent
    return group.split("-spines")[0] if group else None


def _bis(layout, scope=None) -> float:
    return simulate(layout, scope, loads_for=None).bandwidth.bisection_GBps


def _core_links(layout):
    return [lk for lk in layout.links() if lk.a.device.startswith("core-")
            or lk.b.device.startswith("core-")]


def _cut_core(layout, core: str) -> float:
    """Remove one core switch with its links; the share of core link capacity it carried."""
    links = _core_links(layout)
    total = sum(lk.count for lk in links)
    mine = [lk for lk in links if core in (lk.a.device, lk.b.device)]
    with layout.transaction():
        for lk in mine:
            layout.remove_link(lk.id)
        layout.remove_device(core)
    return sum(lk.count for lk in mine) / total


@pytest.fixture(scope="module")
def twin_pods():
    return generate("pods", pods="dgx-b200:32/dgx-b200:32")


def test_each_pod_has_its_own_spines_and_only_the_core_joins_them(twin_pods):
    layout = twin_pods
    assert not [f for f in check_layout(layout) if f.severity == "error"]
    spines = {d.id for d in layout.devices() if d.id.startswith("spine-")}
    cores = {d.id for d in layout.devices() if d.id.startswith("core-")}
    assert spines and cores
    # every spine reaches the core; no leaf reaches the core directly
    for lk in _core_links(layout):
        other = lk.b.device if lk.a.device in cores else lk.a.device
        assert other in spines
    assert {lk.a.device for lk in _core_links(layout)} | {
        lk.b.device for lk in _core_links(layout)} >= spines
    # a leaf reaches only the spines of its own pod
    for lk in layout.links():
        ends = {lk.a.device, lk.b.device}
        leaf = next((e for e in ends if e.startswith("leaf-")), None)
        spine = next((e for e in ends if e in spines), None)
        if leaf and spine:
            assert _pod(layout, leaf) == _pod(layout, spine)
    assert {_pod(layout, x) for x in spines} == {"pod-1", "pod-2"}


def test_cutting_core_capacity_lowers_cross_pod_bisection_by_its_share(twin_pods):
    layout = twin_pods.copy()
    whole, pod1, pod2 = _bis(layout), _bis(layout, "pod-1"), _bis(layout, "pod-2")
    assert whole > 0 and pod1 > 0 and pod1 == pytest.approx(pod2)
    share = _cut_core(layout, "core-1")
    assert 0 < share < 1
    # the two halves of the whole design are the two pods: the cut crosses the core only
    assert _bis(layout) == pytest.approx(whole * (1 - share), rel=1e-6)
    # inside each pod nothing crosses the core: its own bisection is unchanged
    assert _bis(layout, "pod-1") == pytest.approx(pod1)
    assert _bis(layout, "pod-2") == pytest.approx(pod2)


def test_a_thinner_core_never_raises_cross_pod_bisection():
    full = generate("pods", pods="dgx-b200:32/dgx-b200:32")
    thin = generate("pods", pods="dgx-b200:32/dgx-b200:32", core=2)
    assert len(_core_links(thin)) <= len(_core_links(full))
    assert _bis(thin) == pytest.approx(_bis(full) / 2, rel=1e-6)
    assert _bis(thin, "pod-1") == pytest.approx(_bis(full, "pod-1"))


def test_a_hybrid_of_an_nvl72_pod_and_a_dgx_pod_is_built_and_checked_against_a_site():
    layout = generate("pods", pods="gb200-nvl72:8/dgx-b200:32", cdus=1)
    report = cooling_report(layout)
    assert report.liquid_w > 0 and report.air_w > 0 and not report.unserved
    gpus = sum(1 for d in layout.devices() if layout.catalog.get(d.model).traits.computes)
    assert gpus == 8 * 72 + 32 * 8
    layout.set_meta(site=Site(facility_power_kw=2000, liquid_kw=1000))
    codes = {f.code for f in check_layout(layout) if f.severity == "error"}
    assert not codes  # within 2 MW and a 1 MW loop
    layout.set_meta(site=Site(liquid_kw=report.liquid_w / 2000))
    assert "site-liquid" in {f.code for f in check_layout(layout)}


@pytest.mark.parametrize("pods, words", [
    ("dgx-b200:32", "two or more pods"),
    ("dgx-b200:32/", "two or more pods"),
    ("dgx-b200:32/nope:3", "is not a system"),
])
def test_bad_pods_are_refused_with_the_option_named(pods, words):
    with pytest.raises(GeneratorError) as err:
        generate("pods", pods=pods)
    assert words in str(err.value)
