"""Each fact computed once (issue 23 §2): the places that used to derive a fact themselves now
read one function, so the CLI, the live panel (which shows the simulation's messages) and the
Problems dock (the design rules) say the same thing about the same objects."""

from __future__ import annotations

import pytest

from rackdesigner.cli import main
from rackdesigner.commands.edits import RemoveItems
from rackdesigner.io import LayoutFileError, dump_layout_text, parse_layout_text
from rackdesigner.model import Device, Layout, LayoutError, Link, PortRef, check_layout
from rackdesigner.model.items import is_valid_id
from rackdesigner.model.power import over_budget, rack_budget
from rackdesigner.model.racks import RackIndex
from rackdesigner.simulation import SimulationInputError, simulate
from rackdesigner.simulation.collectives import Point, point_at
from rackdesigner.sweep.point import apply_edit
from rackdesigner.sweep.spec import Edit
from rackdesigner.workload.comm import CommError, CommModel


def _save(layout: Layout, path) -> str:
    path.write_text(dump_layout_text(layout))
    return str(path)


def test_an_id_with_a_final_newline_is_refused_by_mutators_bulk_add_and_reader(catalog):
    assert is_valid_id("gpu-1") and not is_valid_id("gpu-1\n")
    layout = Layout(catalog)
    with pytest.raises(LayoutError, match="invalid device id"):
        layout.add_device(Device("gpu-1\n", "h100-sxm5"))
    with pytest.raises(LayoutError, match="invalid device id"):
        layout.add_all([], [Device("gpu-1\n", "h100-sxm5")], [])
    with pytest.raises(ValueError):
        PortRef.parse("gpu-1:nvlink\n")
    text = 'schema_version: 1\ndevices:\n  - {id: "gpu-1\\n", model: h100-sxm5}\n'
    with pytest.raises(LayoutFileError, match="gpu-1"):
        parse_layout_text(text, "d.yaml", catalog)


def _racked(catalog) -> Layout:
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    layout.add_device(Device("leaf-1", "qm9700", rack="rack-1", u=10))
    layout.add_device(Device("leaf-2", "qm9700", rack="rack-1", u=12))
    layout.add_link(Link("l-1", PortRef("leaf-1", "ib"), PortRef("leaf-2", "ib")))
    return layout


def test_the_sweeps_remove_is_the_designers_delete(catalog):
    by_sweep, by_designer = _racked(catalog), _racked(catalog)
    apply_edit(by_sweep, Edit("remove", ("rack-*",)), {})
    RemoveItems(devices=["rack-1"]).apply(by_designer)
    assert dump_layout_text(by_sweep) == dump_layout_text(by_designer)
    assert by_sweep.device("leaf-1").rack is None  # unracked, not pointing at a deleted rack
    assert "bad-rack" not in {f.code for f in check_layout(by_sweep)}


def _over_wired_and_cut_off(catalog) -> Layout:
    """Two DGX-less GPUs: one NVLink port group wired beyond its 18 ports, no NIC anywhere."""
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    layout.add_device(Device("gpu-2", "h100-sxm5"))
    layout.add_device(Device("gpu-3", "h100-sxm5"))
    layout.add_link(Link("l-1", PortRef("gpu-1", "nvlink"), PortRef("gpu-2", "nvlink"), 19))
    return layout


def test_rules_simulation_and_cli_agree_on_exhausted_ports_and_gpus_without_a_nic(
        catalog, tmp_path, capsys):
    layout = _over_wired_and_cut_off(catalog)
    assert layout.index().exhausted_ports() == (("gpu-1", "nvlink", 19, 18),
                                                ("gpu-2", "nvlink", 19, 18))
    problems = {}
    for f in check_layout(layout):
        problems.setdefault(f.code, []).append(f)
    assert [f.objects[0] for f in problems["ports-exhausted"]] == ["gpu-1", "gpu-2"]
    assert {f.objects[0] for f in problems["gpu-no-nic"]} == {"gpu-1", "gpu-2", "gpu-3"}
    result = simulate(layout)  # what the live panel shows
    texts = {m.code: m.text for m in result.diagnostics}
    assert "gpu-1: 19 links on port group 'nvlink', which has 18 ports" in \
        texts["rule_ports_exhausted"]
    assert "rule_gpu_no_nic" in texts
    path = _save(layout, tmp_path / "d.yaml")
    assert main(["validate", path]) != 0
    out = capsys.readouterr().out
    assert "gpu-1: 19 links on port group 'nvlink', which has 18 ports" in out
    assert "gpu-no-nic" in out or "no path to a NIC" in out


def test_simulation_and_estimator_resolve_a_scope_with_the_same_words(catalog):
    layout = _over_wired_and_cut_off(catalog)
    for scope, expected in (("no-such", "no group 'no-such' in this layout"),
                            (["gpu-1", "nic-9"], "no device 'nic-9' in this layout")):
        with pytest.raises(SimulationInputError) as sim:
            simulate(layout, scope)
        with pytest.raises(CommError) as est:
            if isinstance(scope, str):
                CommModel.layout_gpus(layout, scope)
            else:
                CommModel.select_gpus(layout, scope)
        assert str(sim.value) == str(est.value) == expected


def test_busbw_at_a_size_is_one_rule_for_engine_panel_whatif_and_sweep():
    curve = tuple(Point(2 ** k, 1.0, 1.0, float(k), "ring", "Simple") for k in range(3, 8))
    assert point_at(curve, 32).bytes == 32  # a sweep size: that row
    assert point_at(curve, 33).bytes == 64  # between sizes: rounded up, as nccl-tests does
    assert point_at(curve, 10 ** 9).bytes == 128  # beyond the curve: the largest row
    assert point_at((), 8) is None
    result = simulate(_racked_gpus())
    for name in ("all_reduce", "all_to_all"):
        rows = result.collective(name)
        assert result.point_at(name, 3 * 2 ** 20) == point_at(rows, 3 * 2 ** 20)
        assert result.point_at(name, 3 * 2 ** 20).bytes == 4 * 2 ** 20


def _racked_gpus() -> Layout:
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))


def test_over_budget_has_one_tolerance_for_rules_racks_view_and_placement(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    budget = rack_budget(layout.device("rack-1"), catalog.get("rack-42u")).watts
    assert budget
    # a sum of many figures landing a rounding error above the budget is within it
    assert not over_budget(budget * (1 + 1e-9), budget)
    assert over_budget(budget * 1.01, budget)
    summary = RackIndex(layout).summaries()["rack-1"]
    import dataclasses

    near = dataclasses.replace(summary, max_w=budget * (1 + 1e-9))
    over = dataclasses.replace(summary, max_w=budget * 1.01)
    assert near.power_state() == "high" and over.power_state() == "over"


def test_the_partition_sentence_and_its_headline_are_one_text(catalog):
    layout = _over_wired_and_cut_off(catalog)
    reach = layout.index().reachability()
    assert reach.partitioned
    assert reach.describe().startswith(reach.headline())
    finding = next(f for f in check_layout(layout) if f.code == "gpus-unreachable")
    assert reach.describe() in finding.message
    assert reach.describe() in " ".join(simulate(layout).messages)


def test_counts_by_kind_come_from_the_index(catalog):
    from rackdesigner.cli.generate_cmd import summary

    layout = _racked(catalog)
    kinds, _ = layout.index().counts()
    assert (kinds["switch"], kinds["rack"]) == (2, 1)
    assert summary(layout) == "0 GPUs, 2 switches, 1 link, 1 rack"  # issue 38: "1 racks"


@pytest.mark.parametrize("make", [
    lambda: ([], [Device("d-1", "h100-sxm5", group="nope")], []),
    lambda: ([], [Device("gpu-1", "h100-sxm5")], []),  # the id is taken
    lambda: ([], [], [Link("l-9", PortRef("gpu-1", "nvlink"), PortRef("ghost", "nvlink"))]),
    lambda: ([], [], [Link("l-9", PortRef("gpu-1", "nvlink"), PortRef("gpu-2", "nvlink"), 0)]),
])
def test_one_by_one_and_bulk_adds_refuse_with_the_same_words(catalog, make):
    one, bulk = _over_wired_and_cut_off(catalog), _over_wired_and_cut_off(catalog)
    groups, devices, links = make()
    with pytest.raises(LayoutError) as single:
        for g in groups:
            one.add_group(g)
        for d in devices:
            one.add_device(d)
        for k in links:
            one.add_link(k)
    with pytest.raises(LayoutError) as together:
        bulk.add_all(groups, devices, links)
    assert str(single.value) == str(together.value)


# ---- one validation of an object's values: mutators, bulk add and both file forms -------------

_HOSTILE_POS = ["1.0e+151", ".nan", ".inf", "x", "true", "1" + "0" * 400]
_HOSTILE_U = ["0", "10000", "true", "1.5"]
_HOSTILE_COUNT = ["0", "1000001", "true"]
_HOSTILE_LENGTH = ["-1", ".nan", "true", "1" + "0" * 400]


def _plain(pos: str = "1, 2", u: str | None = None, count: str = "2",
           length: str = "3") -> str:
    rack = f", rack: rack-1, u: {u}" if u is not None else ""
    return ("schema_version: 1\ndevices:\n- {id: rack-1, model: rack-42u}\n"
            f"- {{id: sw-1, model: qm9700, pos: [{pos}]{rack}}}\n- {{id: sw-2, model: qm9700}}\n"
            f"links:\n- {{id: link-1, a: sw-1:ib, b: sw-2:ib, count: {count}, length_m: {length}}}"
            "\n# end of layout: 0 groups, 3 devices, 1 link\n")


def _refused_by_mutator(catalog, **values) -> bool:
    import yaml

    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "rack-42u"))
    layout.add_device(Device("sw-2", "qm9700"))
    pos = yaml.safe_load(f"[{values.get('pos', '1, 2')}]")
    u = yaml.safe_load(values["u"]) if "u" in values else None
    try:
        layout.add_device(Device("sw-1", "qm9700", pos=tuple(pos), rack="rack-1" if u else None,
                                 u=u))
        layout.add_link(Link("link-1", PortRef("sw-1", "ib"), PortRef("sw-2", "ib"),
                             yaml.safe_load(values.get("count", "2")), None,
                             yaml.safe_load(values.get("length", "3"))))
    except LayoutError:
        return True
    return False


@pytest.mark.parametrize(("key", "value"), [("pos", f"{v}, 0") for v in _HOSTILE_POS]
                         + [("u", v) for v in _HOSTILE_U]
                         + [("count", v) for v in _HOSTILE_COUNT]
                         + [("length", v) for v in _HOSTILE_LENGTH]
                         + [("pos", "1.0e+150, -1.0e+150"), ("u", "9999"), ("count", "1000000"),
                            ("length", "0")])
def test_the_reader_refuses_a_value_exactly_when_the_mutators_do(catalog, key, value):
    refused = _refused_by_mutator(catalog, **{key: value})
    try:
        parse_layout_text(_plain(**{key: value}), catalog=catalog)
    except LayoutFileError as exc:
        assert refused, f"the reader refused what a mutator takes: {exc}"
        assert ":4:" in str(exc) or ":7:" in str(exc)  # located on the object's line
    else:
        assert not refused, "the reader took what every mutator refuses"


def test_a_compact_instance_cannot_place_its_devices_past_the_models_bound(catalog):
    from rackdesigner.generators import generate
    from rackdesigner.io.compact import dump_compact_text

    text = dump_compact_text(generate("single-leaf", system="dgx-h100", nodes=2,
                                      switch="qm9700", catalog=catalog))
    assert parse_layout_text(text, catalog=catalog).device_count() > 0
    # each within the bound, their sum (the device's place) past it: refused in the model's
    # words (items.device_problem), on the instance's line
    far = text.replace("pos: [0, 1200]", "pos: [1.0e+150, 1200]").replace(
        "id: cpu1, model: xeon-8480c, pos: [170, 360]",
        "id: cpu1, model: xeon-8480c, pos: [1.0e+150, 360]")
    assert far.count("1.0e+150") == 2
    line = next(n for n, t in enumerate(far.splitlines(), 1) if "1.0e+150, 1200" in t)
    with pytest.raises(LayoutFileError, match=rf":{line}: instance dgx-1: device 'dgx-1.cpu1': "
                       r"position must be two finite numbers within"):
        parse_layout_text(far, catalog=catalog)
    # at the bound itself every device stands: taken, as the mutators would
    near = text.replace("pos: [0, 1200]", "pos: [1.0e+150, 1200]")
    assert parse_layout_text(near, catalog=catalog).device("dgx-1.cpu1").pos[0] == 1e150 + 170


#: Lines at the edges of what the fast line reader takes whole (direct.direct_*): the
#: longest numbers its patterns match, the model's bounds and just past them.
_EDGE_DEVICES = [
    "- {id: d-1, model: m, pos: [99999999999999999999, -99999999999999999999]}",
    "- {id: d-1, model: m, pos: [1.0e+150, -1.0e+150], rack: r-1, u: 9999}",
    "- {id: d-1, model: m, pos: [1.1e+150, 0.0]}", "- {id: d-1, model: m, pos: [1.0e+999, 0]}",
    "- {id: d-1, model: m, pos: [-0.0, 0.0], rack: r-1, u: 1}",
    "- {id: d-1, model: m, pos: [0.0, 0.0], rack: r-1, u: 10000}",
    "- {id: d-1, model: m, pos: [00000000000000000001, 0.0]}",
]
_EDGE_LINKS = [
    "- {id: l-1, a: d-1:p, b: d-2:p, count: 9999999}",
    "- {id: l-1, a: d-1:p, b: d-2:p, count: 1000000, length_m: 1.0e+150}",
    "- {id: l-1, a: d-1:p, b: d-2:p, count: 1000001}",
    "- {id: l-1, a: d-1:p, b: d-2:p, length_m: 99999999999999999999}",
    "- {id: l-1, a: d-1:p, b: d-2:p, length_m: -0.0}",
    "- {id: l-1, a: d-1:p, b: d-2:p, length_m: 1.0e+999}",
]


@pytest.mark.parametrize("line", _EDGE_DEVICES + _EDGE_LINKS)
def test_what_the_fast_line_reader_builds_the_model_takes(line):
    """The reader's fast path builds model objects without the entry checks: whatever it
    builds must pass the model's own (a bound changed in model/items.py fails here)."""
    from rackdesigner.io import direct
    from rackdesigner.model.items import device_problem, link_problem

    device = "model:" in line
    built = (direct.direct_device if device else direct.direct_link)(line)
    if built is not None:
        assert (device_problem if device else link_problem)(built) is None, built
    assert any(direct.direct_device(t) is not None for t in _EDGE_DEVICES)
    assert any(direct.direct_link(t) is not None for t in _EDGE_LINKS)
