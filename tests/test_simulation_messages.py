"""Engine messages carry a severity: warnings (a problem with the design or with what the figures
cover) and notes (how a figure was obtained); `messages` and the JSON shape stay compatible."""

from __future__ import annotations

import json

import pytest
from catalog_builder import build_catalog

from rackdesigner.model import Device, Layout
from rackdesigner.simulation import NOTE, WARNING, Message, SimulationResult, simulate

SPECS = {
    "mgpu": "kind: gpu\nmodel: M-GPU\npower: {typical_w: 500, max_w: 700, source: s}\nports:\n"
            "  - {name: pcie, protocol: pcie, generation: '5', count: 1, lanes: 1, "
            "rate_gbps: 512, connector: c, source: s}\n"
            "gpu: {architecture: hopper, sm: 90, source: s}\n",
    "mrack": "kind: rack\nmodel: M-rack\nu_height: 42\n"
             "rack: {height_u: 42, power_budget_w: 1000, source: s}\n",
}


@pytest.fixture(scope="module")
def mcat(tmp_path_factory):
    return build_catalog(tmp_path_factory.mktemp("catalog"), SPECS)


def _example(name):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


def test_plain_example_has_notes_and_no_warnings():
    result = simulate(_example("dgx-h100.yaml"))
    assert result.warnings() == ()
    codes = {m.code for m in result.notes()}
    assert "model_latency" in codes
    assert [m.text for m in result.classified()] == list(result.messages)


def test_unreachable_gpus_and_an_over_budget_rack_are_warnings(mcat):
    layout = Layout(catalog=mcat)
    layout.add_device(Device("r1", "mrack"))
    for g in ("g0", "g1"):  # 2 x 700 W in a 1 kW rack, no link between them
        layout.add_device(Device(g, "mgpu", rack="r1"))
    result = simulate(layout)
    warnings = {m.code: m.text for m in result.warnings()}
    # no NIC either: validate's gpu-no-nic error is reported as a warning too
    assert set(warnings) == {"unreachable_gpus", "rack_over_budget", "rule_gpu_no_nic"}
    assert "r1" in warnings["rack_over_budget"] and "1.0 kW" in warnings["rack_over_budget"]
    assert all(m.severity in (WARNING, NOTE) for m in result.classified())


def test_no_gpus_is_a_warning(mcat):
    layout = Layout(catalog=mcat)
    layout.add_device(Device("r1", "mrack"))
    assert [m.code for m in simulate(layout).warnings()] == ["no_gpus"]


def test_json_only_gains_diagnostics():
    result = simulate(_example("dgx-h100-2node-ib.yaml"))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["messages"] == list(result.messages)
    assert [d["text"] for d in data["diagnostics"]] == data["messages"]
    assert {d["severity"] for d in data["diagnostics"]} == {NOTE}
    assert {d["code"] for d in data["diagnostics"]} >= {"sharp_off", "model_latency"}
    with_sharp = simulate(_example("dgx-h100-2node-ib.yaml"), sharp=True)
    assert "sharp_assumed" in {m.code for m in with_sharp.notes()}


def test_a_result_without_diagnostics_treats_messages_as_warnings():
    result = simulate(_example("dgx-h100.yaml"))
    legacy = SimulationResult(result.scope, result.bandwidth, result.collectives,
                              result.latency, result.power, ("something odd",))
    assert legacy.warnings() == (Message("unclassified", WARNING, "something odd"),)
    with pytest.raises(ValueError):
        Message("x", "fatal", "y")


@pytest.mark.parametrize("name", ["dgx-h100.yaml", "dgx-h100-2node-ib.yaml"])
def test_a_result_reads_back_from_its_json(name, tmp_path):
    from rackdesigner.simulation.readback import ResultFormatError, load_result

    result = simulate(_example(name), pue=1.45)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result.to_dict()))
    back = load_result(path)
    assert back.to_dict() == json.loads(path.read_text())
    assert back.power.per_gpu_w == pytest.approx(result.power.per_gpu_w, abs=0.1)
    assert back.notes() == result.notes()
    path.write_text(json.dumps({**result.to_dict(), "power": {"pue": 1.3}}))
    with pytest.raises(ResultFormatError, match=r"power\.total_max_w is missing"):
        load_result(path)
