"""Every design rule fires on the case it exists for, and stays quiet on a clean design."""

from __future__ import annotations

import pytest

from rackdesigner.model import (
    ERROR,
    WARNING,
    Device,
    Layout,
    Link,
    PortRef,
    check_layout,
    instantiate,
    nvlink_domains,
)


def _codes(layout: Layout) -> dict[str, str]:
    return {f.code: f.severity for f in check_layout(layout)}


def _dgx(layout: Layout, prefix: str, **kw) -> None:
    parts = instantiate(layout.catalog, "dgx-h100", prefix, **kw)
    layout.add_all(parts.groups, parts.devices, parts.links)


def test_a_dgx_h100_is_clean(catalog):
    layout = Layout(catalog)
    _dgx(layout, "dgx-1")
    assert check_layout(layout) == []


def test_protocol_mismatch(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    layout.add_device(Device("leaf-1", "qm9700"))
    layout.add_link(Link("l1", PortRef("gpu-1", "nvlink"), PortRef.parse(
        f"leaf-1:{catalog.get('qm9700').ports[0].name}")))
    findings = [f for f in check_layout(layout) if f.code == "protocol-mismatch"]
    assert len(findings) == 1 and findings[0].severity == ERROR
    assert "nvlink" in findings[0].message and "infiniband" in findings[0].message
    assert findings[0].objects == ("l1",)


def test_port_used_twice_and_out_of_range(catalog):
    layout = Layout(catalog)
    ib = catalog.get("qm9700").ports[0]
    layout.add_device(Device("leaf-1", "qm9700"))
    layout.add_device(Device("leaf-2", "qm9700"))
    layout.add_device(Device("leaf-3", "qm9700"))
    layout.add_link(Link("l1", PortRef("leaf-1", ib.name, 3), PortRef("leaf-2", ib.name, 0)))
    layout.add_link(Link("l2", PortRef("leaf-1", ib.name, 3), PortRef("leaf-3", ib.name, 0)))
    layout.add_link(Link("l3", PortRef("leaf-2", ib.name, ib.count), PortRef("leaf-3", ib.name, 1)))
    codes = _codes(layout)
    assert codes["port-reused"] == ERROR
    assert codes["port-range"] == ERROR
    reused = next(f for f in check_layout(layout) if f.code == "port-reused")
    assert {"l1", "l2"} <= set(reused.objects)


def test_more_links_than_the_port_group_has(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    layout.add_device(Device("sw-1", "nvswitch-gen3"))
    layout.add_link(Link("l1", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink"), 18))
    assert "ports-exhausted" not in _codes(layout)
    layout.add_device(Device("sw-2", "nvswitch-gen3"))
    layout.add_link(Link("l2", PortRef("gpu-1", "nvlink"), PortRef("sw-2", "nvlink"), 1))
    finding = next(f for f in check_layout(layout) if f.code == "ports-exhausted")
    assert "19 links" in finding.message and "18 ports" in finding.message


def test_rate_mismatch_is_a_warning_naming_the_slower_rate(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "a100-sxm4"))
    layout.add_device(Device("gpu-2", "b200"))
    layout.add_link(Link("l1", PortRef("gpu-1", "nvlink"), PortRef("gpu-2", "nvlink")))
    finding = next(f for f in check_layout(layout) if f.code == "rate-mismatch")
    slow = min(catalog.get("a100-sxm4").port("nvlink").rate_gbps,
               catalog.get("b200").port("nvlink").rate_gbps)
    assert finding.severity == WARNING and f"runs at {slow:g} Gb/s" in finding.message


def test_missing_devices_ports_and_models(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    layout.add_device(Device("gpu-2", "h100-sxm55"))
    layout.add_device(Device("sw-1", "nvswitch-gen3"))
    layout.add_link(Link("l1", PortRef("gpu-1", "nvlinq"), PortRef("sw-1", "nvlink")))
    layout.add_unresolved_link(Link("l2", PortRef("gpu-1", "nvlink"), PortRef("ghost", "nvlink")))
    findings = {f.code: f for f in check_layout(layout)}
    assert "h100-sxm5" in findings["unknown-model"].message  # suggests the close model
    assert "model 'h100-sxm55' (did you mean" in findings["unknown-model"].message  # quoted
    assert "nvlinq" in findings["missing-port"].message
    assert "ghost" in findings["missing-device"].message


def test_rack_overlap_height_and_power(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    _dgx(layout, "dgx-1", rack="rack-1", u=1)
    _dgx(layout, "dgx-2", rack="rack-1", u=5)  # DGX H100 is 8U: U1-8 and U5-12 overlap
    _dgx(layout, "dgx-3", rack="rack-1", u=40)  # U40-47 exceeds a 42U rack
    _dgx(layout, "dgx-4", rack="rack-1", u=13)
    _dgx(layout, "dgx-5", rack="rack-1", u=21)
    assert "rack-power" not in _codes(layout)  # 5 x 10.2 kW is within the model's 69 kW
    # the budget the user set on the rack replaces the model's default
    layout.update_device("rack-1", props=(("power_budget_w", 45000),))
    findings = check_layout(layout)
    codes = {f.code for f in findings}
    assert {"rack-overlap", "rack-height", "rack-power"} <= codes
    overlap = next(f for f in findings if f.code == "rack-overlap")
    assert set(overlap.objects) >= {"dgx-1.chassis", "dgx-2.chassis"}
    power = next(f for f in findings if f.code == "rack-power")
    assert "51.0 kW" in power.message and "45.0 kW budget (set on the rack)" in power.message


def test_a_rack_without_its_own_budget_uses_its_models_published_default(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    for i in range(7):  # 7 x 10.2 = 71.4 kW (overlapping U, flagged separately)
        _dgx(layout, f"dgx-{i + 1}", rack="rack-1", u=1 + 5 * i)
    power = next(f for f in check_layout(layout) if f.code == "rack-power")
    spec = catalog.get("rack-42u").rack
    assert f"{spec.power_budget_w / 1000:.1f} kW budget ({spec.budget_basis})" in power.message
    assert spec.power_budget_w != 4 * 10200  # not the reference design's own draw


def test_one_dgx_in_a_rack_fits_its_budget(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    _dgx(layout, "dgx-1", rack="rack-1", u=1)
    assert check_layout(layout) == []


def _full_rack_with_a_leaf(catalog, leaf_rack="rack-1"):
    """4 DGX H100 (4 x 10.2 kW = the 40.8 kW budget the user set on this rack) and a QM9700
    leaf in U33, cabled with multimode fibre (twin-port 15 W transceivers on the switch)."""
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u", props=(("power_budget_w", 40800),)))
    for i in range(4):
        _dgx(layout, f"dgx-{i + 1}", rack="rack-1", u=1 + 8 * i)
    layout.add_device(Device("leaf-1", "qm9700", rack=leaf_rack, u=33 if leaf_rack else None))
    for i in range(4):
        for n in range(2):
            layout.add_link(Link(f"f{i}-{n}", PortRef(f"dgx-{i + 1}.nic{n}", "ib"),
                                 PortRef("leaf-1", "ib"), 1, "fiber-mm-ndr", 3.0))
    return layout


def test_rack_power_counts_the_optics_in_the_rack_like_the_simulation(catalog):
    from rackdesigner.simulation import simulate

    layout = _full_rack_with_a_leaf(catalog)
    # the DGXs alone are exactly at the budget set on the rack; the leaf adds its published
    # maximum (1,720 W "with active cables", which includes its cages' optics), and at typical
    # its passive figure (747 W) plus the switch-side transceivers (8 links x 15 W / 2, twin-port);
    # the DGX-side optics are inside each DGX's 10.2 kW
    power = [f for f in check_layout(layout) if f.code == "rack-power"]
    assert len(power) == 1 and power[0].severity == ERROR
    assert "42.5 kW" in power[0].message and "set on the rack" in power[0].message
    rack = simulate(layout).power.by_rack["rack-1"]
    assert rack.max_w == pytest.approx(40800 + 1720)
    assert rack.typical_w == pytest.approx(40800 + 747 + 8 * 15.0 / 2)
    assert rack.utilisation > 1.0 and rack.over_budget


def test_rules_and_simulation_agree_on_every_rack(catalog):
    from rackdesigner.model.power import RackPower
    from rackdesigner.simulation import simulate

    # the leaf outside the rack: its transceivers are not drawn here, the DGX-side optics are
    # inside the DGX's 10.2 kW, so the rack is exactly at budget in both views
    layout = _full_rack_with_a_leaf(catalog, leaf_rack=None)
    assert "rack-power" not in _codes(layout)
    by_rack = simulate(layout).power.by_rack
    assert by_rack["rack-1"].utilisation == 1.0
    assert {r: round(v[1], 1) for r, v in RackPower(layout).by_rack().items()} == {
        r: v.max_w for r, v in by_rack.items()}


def test_gpu_without_nic_only_matters_with_several_nvlink_domains(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    assert "gpu-no-nic" not in _codes(layout)
    _dgx(layout, "dgx-1")
    assert len(nvlink_domains(layout)) == 2
    finding = next(f for f in check_layout(layout) if f.code == "gpu-no-nic")
    assert finding.severity == ERROR and finding.objects == ("gpu-1",)


def test_gpu_reaching_a_nic_only_through_an_nvlink_peer_is_a_warning(catalog):
    layout = Layout(catalog)
    _dgx(layout, "dgx-1")
    _dgx(layout, "dgx-2")
    pcie = [lk for lk in layout.links_of("dgx-1.gpu0")
            if layout.spec(lk.other("dgx-1.gpu0").device).kind != "nvswitch"]
    for link in pcie:
        layout.remove_link(link.id)
    findings = [f for f in check_layout(layout) if f.code == "gpu-no-nic"]
    assert [(f.severity, f.objects) for f in findings] == [(WARNING, ("dgx-1.gpu0",))]
