"""The shipped catalog: every required product is present and its figures add up."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from rackdesigner.catalog import Catalog, DeviceSpec, default_catalog

REQUIRED = [
    "a100-sxm4", "h100-sxm5", "h200-sxm", "b200", "gb200-gpu",
    "xeon-8480c", "xeon-8570", "epyc-7742", "grace",
    "nvswitch-gen2", "nvswitch-gen3", "nvlink5-switch", "nvlink-switch-tray",
    "qm8700", "qm9700", "q3400", "sn5600",
    "connectx-6", "connectx-7", "connectx-8", "bluefield-3",
    "rack-42u", "rack-48u",
    "dac-ndr", "acc-ndr", "aoc-hdr", "fiber-mm-ndr", "fiber-sm-ndr", "nvlink-pcb",
    "mms4x00-ns", "mma4z00-ns", "mms4x00-ns400", "mma4z00-ns400",
    "dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-compute-tray", "gb200-nvl72",
]
SYSTEMS_WITH_MAX = ["dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72"]


# --- helpers: expand a system into leaf devices and links -------------------------------------

_STEP = re.compile(r"^(?P<name>[A-Za-z_][\w-]*)(\[(?P<index>\*|\d+(-\d+)?)\])?$")


def _indices(index: str | None, count: int) -> list[int]:
    if index is None or index == "*":
        return list(range(count))
    if "-" in index:
        lo, hi = (int(x) for x in index.split("-"))
        return list(range(lo, hi + 1))
    return [int(index)]


def _select(
    cat: Catalog, spec: DeviceSpec, selector: str, prefix: str = ""
) -> list[tuple[str, DeviceSpec]]:
    """Paths like 'tray3/gpu1' with their specs, for a selector like 'tray[*]/gpu[*]'."""
    head, _, rest = selector.partition("/")
    m = _STEP.match(head)
    assert m, selector
    part = next(p for p in spec.system.parts if p.name == m["name"])
    child = cat.get(part.model)
    out = []
    for i in _indices(m["index"], part.count):
        path = f"{prefix}{part.name}{i}"
        out.extend(_select(cat, child, rest, path + "/") if rest else [(path, child)])
    return out


def _pairs(rule, a: list, b: list) -> list[tuple]:
    if rule.pattern == "all":
        return [(x, y) for x in a for y in b]
    if rule.pattern == "zip":
        assert len(a) == len(b)
        return list(zip(a, b, strict=True))
    return [(x, b[k * len(b) // len(a)]) for k, x in enumerate(a)]


def expand(cat: Catalog, spec: DeviceSpec, prefix: str = "") -> tuple[dict, list]:
    """(leaf devices by path, links as (path_a, port_a, path_b, port_b)), recursively."""
    devices: dict[str, DeviceSpec] = {}
    links: list[tuple[str, str, str, str]] = []
    for part in spec.system.parts:
        child = cat.get(part.model)
        for i in range(part.count):
            path = f"{prefix}{part.name}{i}"
            if child.system:
                d, ln = expand(cat, child, path + "/")
                devices.update(d)
                links.extend(ln)
            else:
                devices[path] = child
    for rule in spec.system.wiring:
        a = _select(cat, spec, rule.a, prefix)
        b = _select(cat, spec, rule.b, prefix)
        for (pa, _), (pb, _) in _pairs(rule, a, b):
            links.extend([(pa, rule.a_port, pb, rule.b_port)] * rule.count)
    return devices, links


def port_use(links: list) -> Counter:
    use: Counter = Counter()
    for pa, qa, pb, qb in links:
        use[(pa, qa)] += 1
        use[(pb, qb)] += 1
    return use


def max_power(cat: Catalog, spec: DeviceSpec) -> float:
    """Maximum power as the app sums it: a part's max, else its typical figure."""
    total = spec.power.max_w if spec.power.max_w is not None else (spec.power.typical_w or 0.0)
    if spec.system:
        for part in spec.system.parts:
            total += part.count * max_power(cat, cat.get(part.model))
        if spec.system.chassis:
            total += max_power(cat, cat.get(spec.system.chassis))
    return total


# --- tests ---------------------------------------------------------------------------------------


def test_default_catalog_loads_every_required_product(catalog):
    missing = [i for i in REQUIRED if i not in catalog]
    assert missing == []
    assert catalog is default_catalog()


def test_file_layout_matches_kind(catalog):
    for spec in catalog:
        assert spec.file == f"{spec.id}.yaml"


@pytest.mark.parametrize(("gpu", "bidir"), [
    ("a100-sxm4", 600), ("h100-sxm5", 900), ("h200-sxm", 900), ("b200", 1800), ("gb200-gpu", 1800),
])
def test_gpu_nvlink_ports_add_up_to_published_total(catalog, gpu, bidir):
    spec = catalog.get(gpu)
    (nvlink,) = spec.ports_of("nvlink")
    assert nvlink.count * nvlink.rate_gbps * 2 / 8 == bidir
    assert spec.stated.values["nvlink_bidir_GBps"] == bidir


def test_nvlink_link_rates_by_generation(catalog):
    for spec in catalog:
        for group in spec.ports_of("nvlink"):
            expected = {"3": 200, "4": 200, "5": 400}[group.generation]
            assert group.rate_gbps == expected, (spec.id, group)


def test_pcie_x16_rates_by_generation(catalog):
    for spec in catalog:
        for group in spec.ports_of("pcie"):
            assert group.lanes == 16
            assert group.rate_gbps == {"Gen4": 256, "Gen5": 512, "Gen6": 1024}[group.generation]


def test_infiniband_rates_by_generation(catalog):
    for spec in catalog:
        for group in spec.ports_of("infiniband"):
            assert group.rate_gbps == {"HDR": 200, "NDR": 400, "XDR": 800}[group.generation]


def test_stated_port_counts(catalog):
    for spec in catalog:
        if spec.stated is None:
            continue
        for key in ("ports", "nvlink_ports"):
            if key in spec.stated.values and spec.system is None:
                assert sum(g.count for g in spec.ports) == spec.stated.values[key], spec.id


def test_switch_capacities(catalog):
    qm9700 = catalog.get("qm9700").port("ib")
    assert qm9700.count == 64
    assert qm9700.count // qm9700.ports_per_connector == 32
    assert qm9700.count * qm9700.rate_gbps * 2 / 1000 == pytest.approx(51.2)
    qm8700 = catalog.get("qm8700").port("ib")
    assert qm8700.count * qm8700.rate_gbps * 2 / 1000 == pytest.approx(16)
    sn5600 = catalog.get("sn5600").port("eth")
    assert sn5600.count * sn5600.rate_gbps / 1000 == pytest.approx(51.2)
    assert catalog.get("q3400").port("ib").count == 144


def test_nvlink_switch_tray_has_144_ports_and_14_4_tbps(catalog):
    tray = catalog.get("nvlink-switch-tray")
    devices, _ = expand(catalog, tray)
    ports = [d.port("nvlink") for d in devices.values()]
    assert sum(p.count for p in ports) == 144 == tray.stated.values["nvlink_ports"]
    tbps = sum(p.count * p.rate_gbps * 2 / 8 for p in ports) / 1000
    assert tbps == pytest.approx(14.4) == tray.stated.values["nvlink_bidir_TBps"]


@pytest.mark.parametrize("system", SYSTEMS_WITH_MAX)
def test_system_power_adds_up_to_published_maximum(catalog, system):
    spec = catalog.get(system)
    assert max_power(catalog, spec) == pytest.approx(spec.stated.values["max_w"], abs=1)


def test_known_system_maxima(catalog):
    stated = {s: catalog.get(s).stated.values["max_w"] for s in SYSTEMS_WITH_MAX}
    assert stated == {"dgx-a100": 6500, "dgx-h100": 10200, "dgx-h200": 10200,
                      "dgx-b200": 14300, "gb200-nvl72": 120000}


@pytest.mark.parametrize("system", ["dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200",
                                    "gb200-compute-tray", "nvlink-switch-tray", "gb200-nvl72"])
def test_wiring_never_uses_more_ports_than_a_group_has(catalog, system):
    devices, links = expand(catalog, catalog.get(system))
    for (path, port), used in port_use(links).items():
        assert used <= devices[path].port(port).count, (path, port, used)


@pytest.mark.parametrize("system", ["dgx-a100", "dgx-h100", "dgx-b200", "gb200-compute-tray",
                                    "gb200-nvl72"])
def test_system_gpu_counts(catalog, system):
    spec = catalog.get(system)
    devices, _ = expand(catalog, spec)
    gpus = [p for p, d in devices.items() if d.kind == "gpu"]
    assert len(gpus) == spec.stated.values["gpus"]
    if "cpus" in spec.stated.values:
        assert sum(d.kind == "cpu" for d in devices.values()) == spec.stated.values["cpus"]


@pytest.mark.parametrize(("system", "links_per_gpu"), [
    ("dgx-a100", 12), ("dgx-h100", 18), ("dgx-b200", 18), ("gb200-nvl72", 18),
])
def test_every_gpu_nvlink_port_is_wired(catalog, system, links_per_gpu):
    devices, links = expand(catalog, catalog.get(system))
    use = port_use(links)
    for path, dev in devices.items():
        if dev.kind == "gpu":
            assert use[(path, "nvlink")] == links_per_gpu


def test_dgx_h100_nvswitch_split_is_5_5_4_4(catalog):
    _, links = expand(catalog, catalog.get("dgx-h100"))
    per_switch = Counter(pb for pa, _, pb, _ in links if pa == "gpu0" and pb.startswith("nvswitch"))
    assert [per_switch[f"nvswitch{i}"] for i in range(4)] == [5, 5, 4, 4]


def test_nvl72_every_gpu_reaches_all_18_switch_chips_once(catalog):
    spec = catalog.get("gb200-nvl72")
    devices, links = expand(catalog, spec)
    nv = [(a, b) for a, pa, b, pb in links if pa == "nvlink"]
    assert len(nv) == 72 * 18
    chips = {b for _, b in nv}
    assert len(chips) == 18
    assert all(devices[c].id == "nvlink5-switch" for c in chips)
    assert Counter(b for _, b in nv) == {c: 72 for c in chips}
    assert sum(d.kind == "gpu" for d in devices.values()) == 72
    bidir = sum(d.port("nvlink").count * 400 * 2 / 8 for d in devices.values() if d.kind == "gpu")
    assert bidir / 1000 == pytest.approx(spec.stated.values["nvlink_bidir_TBps"], rel=0.01)


def _pcie_neighbours(links: list, node: str) -> set[str]:
    out = set()
    for a, pa, b, pb in links:
        if pa == pb == "pcie":
            if a == node:
                out.add(b)
            elif b == node:
                out.add(a)
    return out


@pytest.mark.parametrize("system", ["dgx-a100", "dgx-h100", "dgx-b200"])
def test_gpu_i_reaches_nic_i_through_one_pcie_switch(catalog, system):
    devices, links = expand(catalog, catalog.get(system))
    for i in range(8):
        (switch,) = _pcie_neighbours(links, f"gpu{i}")
        assert devices[switch].kind == "pcie_switch"
        near = _pcie_neighbours(links, switch)
        assert f"nic{i}" in near
        assert any(devices[n].kind == "cpu" for n in near)


def test_gb200_tray_gpus_reach_nics_through_c2c_and_grace(catalog):
    _, links = expand(catalog, catalog.get("gb200-compute-tray"))
    c2c = {(a, b) for a, pa, b, _ in links if pa == "c2c"}
    assert c2c == {("gpu0", "cpu0"), ("gpu1", "cpu0"), ("gpu2", "cpu1"), ("gpu3", "cpu1")}
    assert {"nic0", "nic1", "dpu0"} <= _pcie_neighbours(links, "cpu0")


def test_every_source_reference_resolves(catalog):
    for spec in catalog:
        refs = [spec.power.source] if spec.power.source else []
        refs += [g.source for g in spec.ports]
        for block in (spec.gpu, spec.switch, spec.nic, spec.cable, spec.transceiver, spec.rack,
                      spec.system, spec.stated):
            if block is not None:
                refs.append(block.source)
        if spec.facts:  # the kind's own facts block (vocabulary/kinds.py)
            refs.append(spec.fact("source"))
        assert refs or spec.kind in ("cpu",), spec.id
        for ref in refs:
            assert ref in spec.sources, (spec.id, ref)
            assert spec.sources[ref].title


def test_blocks_with_numbers_name_a_source(catalog):
    for spec in catalog:
        if spec.power.max_w is not None or spec.power.typical_w is not None:
            assert spec.power.source in spec.sources


def test_nvls_only_on_nvswitch_gen3_and_later(catalog):
    nvls = {s.id for s in catalog if s.supports_nvls}
    assert nvls == {"nvswitch-gen3", "nvlink5-switch"}
    for spec_id in nvls:
        spec = catalog.get(spec_id)
        assert spec.kind == "nvswitch"
        assert int(spec.port("nvlink").generation) >= 4
    assert not catalog.get("nvswitch-gen2").supports_nvls


def test_sharp_on_infiniband_switches_only(catalog):
    sharp = {s.id for s in catalog if s.supports_sharp}
    assert sharp == {"qm8700", "qm9700", "q3400"}
    assert not catalog.get("sn5600").supports_sharp


def test_chip_level_parts_have_no_height_and_boxes_do(catalog):
    for spec in catalog.of_kind("gpu", "cpu", "nvswitch", "nic", "dpu", "pcie_switch"):
        assert spec.u_height == 0, spec.id
    heights = {s: catalog.get(s).u_height for s in
               ("dgx-a100", "dgx-h100", "dgx-b200", "gb200-compute-tray", "nvlink-switch-tray",
                "qm9700", "sn5600")}
    assert heights == {"dgx-a100": 6, "dgx-h100": 8, "dgx-b200": 10, "gb200-compute-tray": 1,
                       "nvlink-switch-tray": 1, "qm9700": 1, "sn5600": 2}


def test_transceiver_and_cable_figures(catalog):
    twin = catalog.get("mms4x00-ns")
    assert (twin.power.typical_w, twin.power.max_w) == (16, 17)
    assert twin.transceiver.rate_gbps == 800
    assert catalog.get("mms4x00-ns400").power.max_w == 9
    dac = catalog.get("dac-ndr").cable
    assert (dac.media, dac.latency_ns_per_m, dac.max_length_m) == ("dac", 4.5, 2)
    assert catalog.get("fiber-mm-ndr").cable.transceiver == "mma4z00-ns"
    assert catalog.get("aoc-hdr").cable.power_w_per_end is None
    assert catalog.get("nvlink-pcb").cable.media == "pcb"


def test_racks_have_budgets(catalog):
    assert catalog.get("rack-42u").rack.height_u == 42
    assert catalog.get("rack-48u").rack.height_u == 48
    assert catalog.get("rack-42u").rack.power_budget_w >= 4 * 10200
    nvl72_max = catalog.get("gb200-nvl72").stated.values["max_w"]
    assert catalog.get("rack-48u").rack.power_budget_w >= nvl72_max
