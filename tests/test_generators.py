"""Generated designs: composition, placement, cabling, validation and YAML round trips."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.generators import TEMPLATES, GeneratorError, describe_templates, generate
from rackdesigner.io import dump_layout_text, load_layout, parse_layout_text, save_layout
from rackdesigner.model import check_layout, has_errors
from rackdesigner.model.instantiate import CELL_H, CELL_W

SMALL = {
    "dgx-a100": {},
    "dgx-h100": {},
    "dgx-h200": {},
    "dgx-b200": {},
    "hgx-h800": {},
    "hgx-h20": {},
    "nvl72": {},
    "superpod": {"system": "dgx-h100", "sus": 1},
    "fat-tree": {"switch": "qm9700", "levels": 2, "endpoints": 128},
    "rail-optimized": {"system": "dgx-b200", "nodes": 40, "switch": "qm9700"},
    "single-leaf": {"system": "dgx-h100", "nodes": 2, "switch": "qm9700"},
    "mixed": {"systems": "gb200-nvl72:1,dgx-b200:2"},
    "pods": {"pods": "gb200-nvl72:1/dgx-b200:2"},
}
CASES = [
    *SMALL.items(),
    ("superpod", {"system": "dgx-b200", "sus": 2}),
    ("superpod", {"system": "dgx-a100", "nodes": 30}),
    ("fat-tree", {"switch": "qm8700", "levels": 3, "endpoints": 100}),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 200, "oversubscription": 3}),
    ("fat-tree", {"switch": "q3400", "levels": 2, "endpoints": 300}),
    ("rail-optimized", {"system": "dgx-a100", "nodes": 8, "switch": "qm8700"}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def kinds(layout) -> Counter:
    return Counter(layout.catalog.get(d.model).kind for d in layout.devices())


def test_every_template_has_a_case():
    assert set(SMALL) == set(TEMPLATES)


@pytest.mark.parametrize(("template", "options"), CASES, ids=IDS)
def test_generated_design_validates_clean(template, options):
    layout = generate(template, **options)
    errors = [f for f in check_layout(layout) if f.severity == "error"]
    assert errors == []


@pytest.mark.parametrize("template", ["dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "hgx-h800",
                                      "hgx-h20", "nvl72"])
def test_reference_systems_validate_without_a_single_warning(template):
    """A stock system as NVIDIA ships it is the user's starting point: any warning on it says
    the catalog disagrees with the published system (issue 26: the DGX B200's GPUs were
    Gen6 on Gen5 PCIe switches)."""
    # an NVL72 rack without a CDU is a finding (rule rack-no-cdu); as shipped it has its CDU
    layout = generate(template, cdus=1) if template == "nvl72" else generate(template)
    assert [f.message for f in check_layout(layout)] == []


@pytest.mark.parametrize(("template", "options"), CASES, ids=IDS)
def test_every_device_is_placed_in_a_rack_and_grouped(template, options):
    layout = generate(template, **options)
    racks = {d.id for d in layout.devices() if layout.catalog.get(d.model).kind == "rack"}
    assert racks
    for device in layout.devices():
        assert device.group is not None, device.id
        if device.id in racks:
            continue
        assert device.rack in racks and device.u is not None and device.u >= 1, device.id
    positions = {d.pos for d in layout.devices()}
    assert len(positions) > 1  # laid out, not piled at the origin


@pytest.mark.slow
@pytest.mark.parametrize(("template", "options"), CASES, ids=IDS)
def test_yaml_round_trip_is_byte_identical(template, options, tmp_path):
    layout = generate(template, **options)
    path = tmp_path / "design.yaml"
    save_layout(layout, path)
    first = path.read_bytes()
    again = load_layout(path)
    assert again == layout
    save_layout(again, path)
    assert path.read_bytes() == first
    assert dump_layout_text(parse_layout_text(first.decode())) == first.decode()


@pytest.mark.parametrize("model", ["dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200"])
def test_dgx_node_is_port_accurate_inside(catalog, model):
    layout = generate(model)
    spec = catalog.get(model)
    parts = {p.name: p for p in spec.system.parts}
    k = kinds(layout)
    assert k["gpu"] == 8 and k["system"] == 0
    assert k["nic"] == parts["nic"].count + sum(p.count for p in spec.system.parts
                                                if p.name == "storage_nic")
    # every GPU uses all of its NVLinks, on switch chips
    gpu_spec = catalog.get(parts["gpu"].model)
    nvlinks = Counter()
    for link in layout.links():
        for end in (link.a, link.b):
            if end.group == "nvlink" and catalog.get(layout.device(end.device).model).kind == "gpu":
                nvlinks[end.device] += link.count
    assert set(nvlinks.values()) == {gpu_spec.port("nvlink").count}
    group = layout.group("dgx-1")
    assert group.kind == "node" and group.template == model
    assert layout.group(group.parent).kind == "rack"


def test_nvl72_composition(catalog):
    layout = generate("nvl72")
    trays = [g for g in layout.groups() if g.kind == "tray"]
    assert Counter(g.template for g in trays) == {"gb200-compute-tray": 18,
                                                  "nvlink-switch-tray": 9}
    models = Counter(d.model for d in layout.devices())
    assert models["gb200-gpu"] == 72 and models["grace"] == 36
    assert models["nvlink5-switch"] == 18 and models["rack-48u"] == 1
    # every GPU has exactly one NVLink to each of the 18 switch chips
    pairs = Counter()
    for link in layout.links():
        ends = {layout.device(e.device).model: e.device for e in (link.a, link.b)}
        if "gb200-gpu" in ends and "nvlink5-switch" in ends:
            pairs[(ends["gb200-gpu"], ends["nvlink5-switch"])] += link.count
    assert len(pairs) == 72 * 18 and set(pairs.values()) == {1}
    # 4 ConnectX-7 per compute tray
    for tray in (g for g in trays if g.template == "gb200-compute-tray"):
        nics = [d for d in layout.group_devices(tray.id, recursive=False)
                if layout.device(d).model == "connectx-7"]
        assert len(nics) == 4
    # the switch trays sit between the compute trays in the rack
    u_of = {g.id: layout.device(layout.group_devices(g.id)[0]).u for g in trays}
    switch_us = [u_of[g.id] for g in trays if g.template == "nvlink-switch-tray"]
    compute_us = [u_of[g.id] for g in trays if g.template == "gb200-compute-tray"]
    assert min(compute_us) < min(switch_us) and max(switch_us) < max(compute_us)
    assert len(set(u_of.values())) == 27


@pytest.mark.parametrize("switch", ["qm8700", "qm9700", "q3400"])
def test_fat_tree_capacity_k2_over_2_and_k3_over_4(catalog, switch):
    from rackdesigner.generators.fattree import capacity, plan_fat_tree

    k = catalog.get(switch).port("ib").count
    assert capacity(k, 2) == k * k // 2
    assert capacity(k, 3) == k**3 // 4
    two = plan_fat_tree(catalog, switch, 2)
    assert (two.leaves, two.spines, two.cores) == (k, k // 2, 0)
    three = plan_fat_tree(catalog, switch, 3)
    assert three.switches == 5 * k * k // 4  # Al-Fares: k pods of k/2 + k/2, (k/2)^2 cores
    assert three.leaves * three.down == k**3 // 4


def test_full_two_level_fat_tree_is_built_to_capacity():
    layout = generate("fat-tree", switch="qm8700", levels=2)
    k = kinds(layout)
    assert k["nic"] == 40 * 40 // 2
    assert k["switch"] == 40 + 20
    assert not has_errors(check_layout(layout))


def test_fat_tree_oversubscription_splits_leaf_ports():
    from rackdesigner.generators.fattree import leaf_split

    assert leaf_split(64, 1) == (32, 32)
    assert leaf_split(64, 3) == (48, 16)
    layout = generate("fat-tree", switch="qm9700", levels=2, endpoints=96, oversubscription=3)
    leaves = [d.id for d in layout.devices() if d.id.startswith("leaf-")]
    assert len(leaves) == 2
    for leaf in leaves:
        ups = sum(lk.count for lk in layout.links_of(leaf) if lk.other(leaf).device
                  .startswith("spine-"))
        assert ups == 16


def test_single_leaf_uses_copper_in_one_rack():
    layout = generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700")
    fabric = [lk for lk in layout.links() if lk.b.device == "leaf-1"]
    assert len(fabric) == 16
    assert {lk.cable for lk in fabric} == {"dac-ndr"}
    assert all(0 < lk.length_m <= 2 for lk in fabric)
    assert sorted(lk.b.index for lk in fabric) == list(range(16))  # port-accurate
    assert len({d.rack for d in layout.devices() if d.rack}) == 1


def test_node_parts_stay_together_on_the_canvas():
    layout = generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700")

    def box(node):
        xs = [layout.device(d).pos[0] for d in layout.group_devices(node)]
        ys = [layout.device(d).pos[1] for d in layout.group_devices(node)]
        return min(xs), min(ys), max(xs), max(ys)

    a, b = box("dgx-1"), box("dgx-2")
    assert a[3] < b[1] or b[3] < a[1]  # stacked, not interleaved
    # the upper node in the rack is drawn above the lower one
    u1, u2 = layout.device("dgx-1.chassis").u, layout.device("dgx-2.chassis").u
    assert (u1 > u2) == (a[1] < b[1])


def canvas_size(layout) -> tuple[float, float]:
    """Width and height of the canvas area the devices' cells cover (scene units)."""
    xs = [d.pos[0] for d in layout.devices()]
    ys = [d.pos[1] for d in layout.devices()]
    return max(xs) - min(xs) + CELL_W, max(ys) - min(ys) + CELL_H


def overlapping(layout) -> list[tuple[str, str]]:
    """Pairs of devices whose CELL_W x CELL_H cells overlap (the drawn boxes are smaller)."""
    found: list[tuple[str, str]] = []
    active: list[tuple[float, float, str]] = []
    for (x, y), dev in sorted((d.pos, d.id) for d in layout.devices()):
        active = [a for a in active if x - a[0] < CELL_W]
        found += [(other, dev) for _, ay, other in active if abs(y - ay) < CELL_H]
        active.append((x, y, dev))
    return found


@pytest.mark.parametrize(("template", "options"), CASES, ids=IDS)
def test_no_two_devices_overlap_on_the_canvas(template, options):
    assert overlapping(generate(template, **options)) == []


def test_nvl72_canvas_is_a_landscape_grid_of_trays():
    layout = generate("nvl72")
    width, height = canvas_size(layout)
    assert 1.0 <= width / height <= 2.0  # was one 680 x 11,080 column (0.06)
    trays = [g for g in layout.groups() if g.kind == "tray"]
    top = {}  # tray -> (y, x, u) of its top-left part
    for g in trays:
        parts = [layout.device(d) for d in layout.group_devices(g.id)]
        top[g.id] = (min(d.pos[1] for d in parts), min(d.pos[0] for d in parts), parts[0].u)
    # the nine switch trays are one row, the compute trays above and below it in rows of 3-6
    switch_y = {top[g.id][0] for g in trays if g.template == "nvlink-switch-tray"}
    assert len(switch_y) == 1
    rows = Counter(top[g.id][0] for g in trays if g.template == "gb200-compute-tray")
    assert all(3 <= n <= 6 for n in rows.values()) and 3 <= len(rows) <= 6
    for g in trays:
        y, _, u = top[g.id]
        if g.template == "gb200-compute-tray":
            assert (y < min(switch_y)) == (u > 20), g.id  # rack order: U21+ above the switches
    # read left to right, top to bottom, the trays come in rack order (top of the rack first)
    reading = sorted(top.values())
    assert [u for _, _, u in reading] == sorted((u for _, _, u in reading), reverse=True)


@pytest.mark.parametrize(("template", "options"), [
    ("superpod", {"system": "dgx-h100", "sus": 4}),
    ("superpod", {"system": "dgx-b200", "sus": 2}),  # an SU row 25,000 units wide, wrapped
    ("rail-optimized", {"system": "dgx-h100", "nodes": 8, "switch": "qm9700"}),
    ("single-leaf", {"system": "dgx-h100", "nodes": 4, "switch": "qm9700"}),
])
def test_generated_canvas_aspect_is_screen_like(template, options):
    width, height = canvas_size(generate(template, **options))
    assert 0.6 <= width / height <= 2.0


def test_wrapping_keeps_the_floor_and_rack_elevation():
    """The canvas wraps an SU row in two, but the racks' floor spots (cable lengths) and the
    devices' U positions are what the floor plan says."""
    layout = generate("superpod", system="dgx-b200", sus=2)
    racks = {d.id: d for d in layout.devices() if layout.catalog.get(d.model).kind == "rack"}
    su1 = [d for d in racks.values() if d.name.startswith("SU1 ")]
    assert len({d.pos[1] for d in su1}) == 2  # one floor row, two canvas rows
    for d in layout.devices():
        if d.id not in racks:
            rack = racks[d.rack]
            assert rack.pos[0] <= d.pos[0] and rack.pos[1] < d.pos[1], d.id  # under its rack
    nodes = [layout.group(f"dgx-{n}") for n in range(1, 5)]
    assert [layout.device(f"{g.id}.chassis").u for g in nodes] == [1, 11, 1, 11]


@pytest.mark.parametrize(("template", "options", "message"), [
    ("nope", {}, "unknown template"),
    ("superpod", {"system": "dgx-h100", "sus": 1, "levels": 2}, "no option 'levels'"),
    ("fat-tree", {"switch": "qm9700"}, "needs the number of levels"),
    ("fat-tree", {"switch": "qm9700", "levels": 4}, "must be one of 2, 3"),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 2049}, "at most 2048"),
    ("fat-tree", {"switch": "qm9700", "levels": 3, "endpoints": 65537}, "at most 65536"),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 0}, "at least 1"),
    ("fat-tree", {"switch": "q3400", "levels": 3}, "give the number of endpoints"),
    ("rail-optimized", {"system": "dgx-h100", "nodes": 20000, "switch": "q3400"},
     "more than the 131072"),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "oversubscription": 0.5}, "1 or more"),
    ("fat-tree", {"switch": "dgx-h100", "levels": 2}, "not a switch"),
    ("fat-tree", {"switch": "qm9701", "levels": 2}, "unknown device model"),
    ("single-leaf", {"system": "dgx-h100", "nodes": 2, "switch": "sn5600"}, "ethernet"),
    ("rail-optimized", {"system": "qm9700", "nodes": 4, "switch": "qm9700"}, "not a system"),
    ("rail-optimized", {"system": "dgx-h100", "nodes": 0, "switch": "qm9700"}, "at least 1"),
    ("single-leaf", {"system": "dgx-h100", "nodes": 9, "switch": "qm9700"}, "at most 8"),
    ("single-leaf", {"system": "dgx-h100", "nodes": 5, "switch": "qm9700"}, "at most 4"),
])
def test_parameter_errors(template, options, message):
    with pytest.raises(GeneratorError, match=message):
        generate(template, **options)


def test_describe_templates_lists_every_template_and_option():
    text = describe_templates()
    for template in TEMPLATES.values():
        assert template.name in text
        for option in template.options:
            assert f"--{option.name}" in text


def test_single_leaf_moves_the_leaf_out_of_a_rack_its_budget_cannot_hold(catalog):
    """Four DGX H100 (40.8 kW) and a QM9700 (1.72 kW max) share a rack under the 42U rack's
    default site budget; a site whose racks hold exactly 40.8 kW gets the leaf in a rack of its
    own."""
    import dataclasses

    from rackdesigner.catalog import Catalog
    from rackdesigner.generators import generate
    from rackdesigner.model import check_layout

    four = generate("single-leaf", system="dgx-h100", nodes=4, switch="qm9700")
    assert check_layout(four) == []
    assert four.device("leaf-1").rack == four.device("dgx-1.chassis").rack
    rack = catalog.get("rack-42u")
    tight = dataclasses.replace(rack, rack=dataclasses.replace(rack.rack, power_budget_w=40800))
    site = Catalog([tight if s.id == "rack-42u" else s for s in catalog])
    three = generate("single-leaf", site, system="dgx-h100", nodes=3, switch="qm9700")
    four = generate("single-leaf", site, system="dgx-h100", nodes=4, switch="qm9700")
    assert check_layout(three) == [] and check_layout(four) == []
    assert three.device("leaf-1").rack == three.device("dgx-1.chassis").rack
    assert four.device("leaf-1").rack != four.device("dgx-1.chassis").rack


@pytest.mark.slow
def test_rail_optimized_taper_keeps_the_nodes_and_halves_the_uplinks(catalog):
    from collections import Counter

    from rackdesigner.generators import GeneratorError

    full = generate("rail-optimized", catalog, system="dgx-b200", nodes=64, switch="qm9700")
    half = generate("rail-optimized", catalog, system="dgx-b200", nodes=64, switch="qm9700",
                    oversubscription=2)
    kinds = [Counter(layout.catalog.get(d.model).kind for d in layout.devices())
             for layout in (full, half)]
    assert kinds[0]["gpu"] == kinds[1]["gpu"] == 512
    spines = [sum(1 for d in layout.devices() if d.id.startswith("spine-"))
              for layout in (full, half)]
    assert spines == [8, 4]
    assert "2:1 oversubscribed" in half.meta.name
    with pytest.raises(GeneratorError, match="oversubscription must be 1 or more"):
        generate("rail-optimized", catalog, system="dgx-b200", nodes=8, switch="qm9700",
                 oversubscription=0.5)


@pytest.mark.parametrize("template, options", [
    ("rail-optimized", {"system": "dgx-h100", "nodes": 16, "switch": "qm9700"}),
    ("rail-optimized", {"system": "dgx-b200", "nodes": 40, "switch": "qm9700"}),
    ("superpod", {"system": "dgx-h100", "nodes": 40}),
])
def test_a_partial_su_has_no_empty_racks(template, options):
    """Issue 38 item 16: `rail-optimized --nodes 16` wrote 8 empty compute racks into the NetBox
    export and the BOM (the SU's racks were made for 32 nodes)."""
    layout = generate(template, **options)
    for group in layout.groups():
        if group.kind == "rack":
            assert len(layout.group_devices(group.id)) > 1, f"{group.name} is empty"
