"""Errors that can hide bugs are logged with their traceback at WARNING or above; core messages
speak of the design and each surface (CLI, dialog) adds its own words for the option at fault."""

from __future__ import annotations

import logging

import pytest

from rackdesigner.analysis.heat import parse_heat
from rackdesigner.cli import main
from rackdesigner.generators import GeneratorError, generate
from rackdesigner.sweep import point as sweep_point
from rackdesigner.sweep.spec import parse_spec

SPEC = ("schema_version: 1\ngenerate: single-leaf\n"
        "fixed: {system: dgx-h100, switch: qm9700}\ngrid: {nodes: [1]}\n")
POINT = {"system": "dgx-h100", "switch": "qm9700", "nodes": 1}


def test_a_sweep_point_failing_on_a_bug_logs_its_traceback_at_warning(monkeypatch, caplog):
    spec = parse_spec(SPEC, "s.yaml")

    def buggy(spec, layout):
        raise AttributeError("'NoneType' object has no attribute 'busbw'")

    monkeypatch.setattr(sweep_point, "_figures", buggy)
    with caplog.at_level(logging.DEBUG, logger="rackdesigner.sweep.point"):
        row = sweep_point.evaluate_point(spec, 0, dict(POINT))
    assert row["status"] == sweep_point.FAILED
    assert row["error"].startswith("AttributeError:")
    (record,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert record.exc_info is not None and "sweep point 0" in record.getMessage()


def test_a_sweep_point_the_design_explains_is_data_not_a_warning(monkeypatch, caplog):
    spec = parse_spec(SPEC, "s.yaml")

    def refused(spec, layout):
        raise ValueError("the job does not fit this point")

    monkeypatch.setattr(sweep_point, "_figures", refused)
    with caplog.at_level(logging.DEBUG, logger="rackdesigner.sweep.point"):
        row = sweep_point.evaluate_point(spec, 0, dict(POINT))
    assert row["error"] == "the job does not fit this point"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_the_graphml_importer_does_not_call_its_own_bug_an_invalid_file(tmp_path, monkeypatch):
    from rackdesigner.interop import graphml, graphml_read

    path = tmp_path / "g.graphml"
    path.write_text("<graphml/>")

    def broken(*args, **kwargs):
        raise AttributeError("a bug in the reader")

    monkeypatch.setattr(graphml_read, "parse", broken)
    with pytest.raises(AttributeError):
        graphml.read(path)
    monkeypatch.undo()
    path.write_text("<graphml")  # a malformed file is still told as one
    with pytest.raises(graphml.GraphmlImportError, match=r"g\.graphml"):
        graphml.read(path)


def test_generator_messages_speak_of_the_design_and_the_cli_names_its_flag(capsys, tmp_path):
    with pytest.raises(GeneratorError) as info:
        generate("superpod", system="dgx-h100", sus=0)
    assert "--" not in str(info.value) and info.value.option == "sus"
    assert main(["generate", "superpod", "--system", "dgx-h100", "--sus", "0",
                 "-o", str(tmp_path / "x.yaml")]) == 2
    assert f"--sus: {info.value}" in capsys.readouterr().err


def test_estimator_and_heat_messages_leave_the_flags_to_the_cli(capsys, tmp_path):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout
    from rackdesigner.workload import EstimateError, Estimator

    path = next(p for p in example_paths() if p.name == "dgx-h100.yaml")
    with pytest.raises(EstimateError) as info:
        Estimator(load_layout(path), "llama3-8b", gpus=64)
    assert str(info.value) == "64 GPUs asked for, but the design has 8"
    assert info.value.option == "gpus"
    assert main(["estimate", str(path), "--model", "llama3-8b", "--gpus", "64", "--gbs", "64"]) == 2
    assert "--gpus: 64 GPUs asked for, but the design has 8" in capsys.readouterr().err
    with pytest.raises(ValueError) as heat:
        parse_heat("all_to_al:1G")
    assert not str(heat.value).startswith("--")
    assert main(["render", str(path), "--heat", "all_to_al:1G",
                 "-o", str(tmp_path / "x.png")]) == 2
    assert "--heat: unknown collective 'all_to_al'" in capsys.readouterr().err


# ---- messages naming several settings: the core's words, each surface's names -----------------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "resources" / "examples"
IB_PAIR = EXAMPLES / "dgx-h100-2node-ib.yaml"


def test_a_generator_message_naming_several_options_in_each_surfaces_words(qtbot, capsys,
                                                                             tmp_path):
    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui.template_dialog import TemplateDialog

    with pytest.raises(GeneratorError) as info:
        generate("superpod", system="dgx-h100")
    assert str(info.value) == "give either the number of SUs or the number of nodes"
    assert main(["generate", "superpod", "--system", "dgx-h100",
                 "-o", str(tmp_path / "x.yaml")]) == 2
    assert "give either --sus or --nodes" in capsys.readouterr().err
    # the dialog names its fields, as it labels them
    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.set_values("superpod", system="dgx-h100")
    dialog.build()
    assert dialog.error.text() == "give either “sus” or “nodes”"
    assert "--" not in dialog.fields["sus"].toolTip() and "“nodes”" in \
        dialog.fields["sus"].toolTip()
    assert main(["generate", "--list"]) == 0
    assert "(give this, --nodes or, for gb200-nvl72, --racks)" in capsys.readouterr().out


def test_a_netbox_type_error_says_what_to_answer_and_the_cli_how(capsys, tmp_path):
    from rackdesigner.interop.netbox_import import (
        NetboxTypeError,
        read_device_type,
        to_catalog_data,
    )

    source = __import__("pathlib").Path(__file__).parent / "data" / "interop" / \
        "netbox-acme-fabricbox-32.yaml"
    with pytest.raises(NetboxTypeError) as info:
        to_catalog_data(source, read_device_type(source), {})
    assert "--" not in str(info.value) and "does not say its protocol and rate" in \
        str(info.value)
    assert (info.value.option, info.value.itype) == ("port", "other")
    assert main(["catalog", "import-netbox", str(source), "--into", str(tmp_path / "c")]) == 2
    assert "--port other=PROTOCOL:GBPS" in capsys.readouterr().err


def test_job_settings_in_the_designs_words_the_tabs_labels_and_the_cli_options(capsys):
    from rackdesigner.io import load_layout
    from rackdesigner.ui.panel.workload_live import tab_text
    from rackdesigner.workload import EstimateError, Estimator, Job

    est = Estimator(load_layout(IB_PAIR), "llama3-8b", gpus=16)
    with pytest.raises(EstimateError) as seq:
        est.estimate(Job(gbs=16, seq=0))
    assert str(seq.value) == "sequence length must be at least 1, got 0"
    assert seq.value.for_cli() == "--seq must be at least 1, got 0"
    with pytest.raises(EstimateError) as vp:
        est.estimate(Job(gbs=16, vp=2))
    assert str(vp.value) == "virtual stages (VP) need pipeline parallelism (PP > 1)"
    with pytest.raises(EstimateError) as gpus:
        est.estimate(Job(gbs=16, tp=3))
    assert "(set GPUs to 15)" in str(gpus.value) and "--" not in str(gpus.value)
    assert "(set GPUs to 15)" in tab_text(gpus.value)  # the Workload tab's label
    assert main(["estimate", str(IB_PAIR), "--model", "llama3-8b", "--gpus", "16",
                 "--gbs", "16", "--vp", "2"]) == 2
    assert "virtual stages (--vp) need pipeline parallelism (--pp > 1)" in \
        capsys.readouterr().err


def test_the_sharp_messages_speak_of_the_design_and_the_cli_adds_its_option(capsys):
    from rackdesigner.io import load_layout
    from rackdesigner.simulation import SimulationInputError, simulate

    layout = load_layout(IB_PAIR)
    with pytest.raises(SimulationInputError) as info:
        simulate(layout, algorithm="collnet")
    assert "set the design's SHARP setting to on" in str(info.value)
    assert "--" not in str(info.value) and "panel" not in str(info.value)
    note = next(m.text for m in simulate(layout, loads_for=None).classified()
                if m.code == "sharp_off")
    assert "--" not in note and "the design's SHARP setting" in note
    assert main(["simulate", str(IB_PAIR), "--algorithm", "collnet"]) == 2
    assert "set --sharp to on" in capsys.readouterr().err
    assert main(["simulate", str(IB_PAIR)]) == 0
    assert "the SHARP plugin (--sharp on)" in capsys.readouterr().out
