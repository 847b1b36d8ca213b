"""The Workload tab on real widgets: estimates follow the design, pin compares two designs,
bad jobs say why. Waits use `flush()`, never sleeps."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture
def make_panel(qtbot):
    def make(layout=None):
        from rackdesigner.ui.panel import SimulationPanel

        panel = SimulationPanel(layout, debounce_ms=20)
        qtbot.addWidget(panel, before_close_func=lambda p: p.close_panel())
        panel.resize(560, 900)
        panel.show()
        panel.show_tab("workload")
        return panel

    return make


def _manual(tab, **degrees):
    tab.layout_combo.setCurrentText("manual")
    for name, value in degrees.items():
        box = getattr(tab, name)
        box.setValue(value)


@pytest.mark.slow
def test_workload_tab_estimates_and_follows_design_edits(make_panel, qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from rackdesigner.commands import RemoveItems
    from tests.workload_designs import SMALL_MODEL, tor_cluster

    tor = tor_cluster(nodes=8, spines=4)  # every ring hop between nodes crosses a spine
    panel = make_panel(tor)
    tab = panel.workload
    model = tmp_path / "small.yaml"
    model.write_text(SMALL_MODEL)
    tab.load_model_file(str(model))
    _manual(tab, tp=1, gbs=64)
    outcome = tab.flush()
    assert outcome.estimate is not None and outcome.estimate.job.dp == 64
    assert tab.figure_text("step").endswith(("ms", "s"))
    assert tab.figure_text("mfu").endswith("%")
    assert "GEMMs run at" in tab.figure_labels["mfu"].toolTip()
    assert "days" in tab.figure_text("train")
    before = outcome.estimate
    assert tab.pin_button.isEnabled()
    qtbot.mouseClick(tab.pin_button, Qt.MouseButton.LeftButton)
    assert tab.baseline is before
    assert tab.axis.labels == ["this design (64 × h100-sxm5)", "baseline (64 × h100-sxm5)"]
    RemoveItems(devices=["spine-3", "spine-4"]).apply(tor)  # one designer edit
    after = tab.flush().estimate
    assert after.breakdown["dp_exposed_s"] > 2.5 * before.breakdown["dp_exposed_s"]
    assert "(+" in tab.figure_text("step")  # slower than the baseline, shown as a delta
    stacked = sum(tab.bars[k].opts["height"][0] for k in tab.bars)
    assert stacked == pytest.approx(after.step_time_s, rel=1e-6)


@pytest.mark.slow
def test_workload_tab_explains_bad_jobs_and_refusals(make_panel, qtbot):
    from rackdesigner.generators import generate

    panel = make_panel(generate("dgx-h100"))
    tab = panel.workload
    _manual(tab, tp=3, gbs=8)
    assert tab.flush().estimate is None
    assert "does not divide" in tab.status.text()
    assert not tab.pin_button.isEnabled()
    tab.tp.setValue(8)
    tab.model_combo.setCurrentText("llama3.1-405b")
    tab._on_option_changed()
    outcome = tab.flush()
    assert outcome.estimate is not None and not outcome.estimate.fits
    assert "does not fit" in tab.figure_text("memory")
    assert "does not fit" in tab.status.text()


@pytest.mark.slow
def test_workload_tab_best_layout_and_model_file(make_panel, qtbot, tmp_path):
    from rackdesigner.generators import generate

    panel = make_panel(generate("dgx-h100"))
    tab = panel.workload
    path = tmp_path / "small.yaml"
    path.write_text("schema_version: 1\nname: Small\nlayers: 4\nhidden: 1024\nheads: 8\n"
                    "ffn: gelu\nvocab: 32000\nseq_len: 2048\nsource: test\n")
    tab.load_model_file(str(path))
    tab.gbs.setValue(64)
    outcome = tab.flush()
    assert outcome.estimate is not None and outcome.estimate.model.name == "Small"
    assert outcome.why.startswith("best of")
    path.write_text("schema_version: 1\nname: Small\nlayers: 4\nhidden: 1024\nheads: 8\n"
                    "ffn: gelu\nvocab: 32000\nseq_len: 2048\nsourse: test\n")
    tab.gbs.setValue(32)
    assert tab.flush().estimate is None
    assert f"{path}:9" in tab.status.text()


@pytest.mark.slow
def test_pinned_baseline_stays_when_another_design_is_opened(make_panel):
    from rackdesigner.generators import generate

    panel = make_panel(generate("rail-optimized", system="dgx-b200", nodes=9, switch="qm9700"))
    tab = panel.workload
    tab.model_combo.setCurrentText("mixtral-8x7b")
    _manual(tab, tp=8, ep=8, gbs=256, gpus=64)
    on_nodes = tab.flush().estimate
    assert tab.pin_baseline()
    panel.set_layout(generate("nvl72"))  # the scale-up alternative, same job
    on_rack = tab.flush().estimate
    assert on_rack.gpu.model == "gb200-gpu" and tab.baseline is on_nodes
    assert tab.axis.labels == ["this design (64 × gb200-gpu)", "baseline (64 × b200)"]
    assert on_rack.breakdown["ep_exposed_s"] < on_nodes.breakdown["ep_exposed_s"] / 3
    assert "(-" in tab.figure_text("step")


@pytest.mark.slow
def test_energy_follows_the_panels_pue(make_panel):
    from rackdesigner.generators import generate

    panel = make_panel(generate("dgx-h100"))
    tab = panel.workload
    _manual(tab, tp=8, gbs=32)
    before = tab.flush().estimate
    panel.pue_spin.setValue(2.0)
    after = tab.flush().estimate
    assert after.step_time_s == pytest.approx(before.step_time_s)
    assert after.energy_kWh_per_step == pytest.approx(
        before.energy_kWh_per_step * 2.0 / 1.3, rel=1e-3)


@pytest.mark.slow
def test_workload_follows_the_panels_selection_scope(make_panel):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    layout = load_layout(next(p for p in example_paths() if p.name == "dgx-h100-2node-ib.yaml"))
    panel = make_panel(layout)
    tab = panel.workload
    _manual(tab, tp=8, gbs=16)
    assert tab.flush().estimate.gpus == 16
    panel.set_selection([], [], ["dgx-2"])
    panel.scope_button.click()  # "Selection only": the group
    est = tab.flush().estimate
    assert est.gpus == 8 and est.label == "group dgx-2"
    assert "group dgx-2" in tab.status.text()
    panel.set_selection(["dgx-1.gpu0", "dgx-1.gpu1"], [], [])  # two GPUs: TP 8 cannot fit
    assert "does not divide the 2 GPUs" in (tab.flush().error or "")
    panel.scope_button.click()  # back to the whole design
    assert tab.flush().estimate.gpus == 16


@pytest.mark.slow
def test_the_stack_changes_the_estimate_and_a_layout_too_big_is_timed_and_marked(make_panel):
    """Choosing Megatron 2021 instead of today's stack (unfused softmax, no TP overlap) makes
    the same job slower; a manual layout that does not fit still shows its time, marked."""
    from rackdesigner.generators import generate

    panel = make_panel(generate("dgx-h100"))
    tab = panel.workload
    tab.model_combo.setCurrentText("llama3-8b")
    _manual(tab, tp=8, gbs=16)
    assert tab.profile_combo.currentText() == "nemo-2025"
    today = tab.flush().estimate
    assert today.profile.id == "nemo-2025" and today.fits
    tab.profile_combo.setCurrentText("megatron-2021")
    old = tab.flush().estimate
    assert old.profile.id == "megatron-2021" and old.step_time_s > today.step_time_s
    assert tab.figure_text("step").endswith(("ms", "s"))  # fits: no mark
    tab.profile_combo.setCurrentText("nemo-2025")
    _manual(tab, tp=1, gbs=64, mbs=8)  # 8 x 8k tokens per GPU without recomputation
    tab.recompute_combo.setCurrentText("none")
    big = tab.flush().estimate
    assert not big.fits and big.timed_anyway and big.step_time_s > 0
    assert tab.figure_text("step").endswith("(does not fit)")
    assert "does not fit" in tab.figure_text("memory")
    assert "Does not fit in memory" in tab.status.text()


def test_the_workload_tab_shows_where_published_runs_of_the_class_fall(make_panel, tmp_path):
    """Issue 33: the figures carry their class's range (spread.py) in the tab's status."""
    from rackdesigner.generators import generate
    from tests.workload_designs import SMALL_MODEL

    tab = make_panel(generate("dgx-h100")).workload
    model = tmp_path / "small.yaml"
    model.write_text(SMALL_MODEL)
    tab.load_model_file(str(model))
    _manual(tab, tp=1, gbs=64)
    est = tab.flush().estimate
    assert est is not None and est.step_time_s
    status = tab.status.text()
    assert "Published runs of this class (training-dense" in status
    lo, hi = est.ranges()["tokens_per_s"]["range"]
    assert f"tokens/s {lo:,.0f}–{hi:,.0f}" in status


@pytest.mark.slow
def test_the_tab_saves_and_loads_job_files_and_a_best_layout_job_is_a_search(make_panel,
                                                                            tmp_path):
    """Issue 38 item 1: the GUI loads and saves job files; "best layout" saves a job every
    design lays out for itself, with the tab's tokens."""
    from rackdesigner.generators import generate
    from rackdesigner.ui.panel.workload_jobfile import load_job_file, save_job_file
    from rackdesigner.workload.jobfile import load_job

    panel = make_panel(generate("rail-optimized", system="dgx-h100", nodes=2, switch="qm9700"))
    tab = panel.workload
    tab.model_combo.setCurrentText("llama3-8b")
    tab.gbs.setValue(32)
    tab.tokens.setValue(2.5)
    assert save_job_file(tab, str(tmp_path / "search"))
    spec = load_job(tmp_path / "search.yaml")
    assert spec.search and spec.tokens == 2.5e12 and spec.job.gbs == 32
    _manual(tab, tp=4, pp=2, gbs=48)
    assert save_job_file(tab, str(tmp_path / "fixed.yaml"))
    fixed = load_job(tmp_path / "fixed.yaml")
    assert not fixed.search and (fixed.job.tp, fixed.job.pp, fixed.job.gbs) == (4, 2, 48)
    # loading sets every field, and the estimate follows once
    (tmp_path / "other.yaml").write_text("model: llama3-70b\ntp: 8\npp: 2\ngbs: 64\n"
                                         "precision: fp8\ntokens: 15T\n")
    assert load_job_file(tab, str(tmp_path / "other.yaml"))
    assert tab.model_combo.currentText() == "llama3-70b"
    assert tab.layout_combo.currentText() == "manual"
    assert (tab.tp.value(), tab.pp.value(), tab.gbs.value()) == (8, 2, 64)
    assert tab.precision_combo.currentText() == "fp8" and tab.tokens.value() == 15.0
    outcome = tab.flush()
    assert outcome.estimate is not None and outcome.estimate.job.tp == 8
    # a file that cannot be used is refused with its line, the fields stay
    (tmp_path / "bad.yaml").write_text("model: llama3-70b\ntp: many\ngbs: 64\n")
    assert not load_job_file(tab, str(tmp_path / "bad.yaml"))
    assert "bad.yaml:2" in tab.job_file_box.text() and tab.tp.value() == 8
    tab.job_file_box.close()


@pytest.mark.slow
def test_a_pinned_baseline_says_when_the_jobs_differ_beyond_the_hardware(make_panel):
    """Issue 38 item 5: the next design's default batch (258 against 256: whole batches per
    node) made the deltas mix the hardware with the batch, silently."""
    from rackdesigner.generators import generate

    panel = make_panel(generate("rail-optimized", system="dgx-h100", nodes=4, switch="qm9700"))
    tab = panel.workload
    _manual(tab, tp=8)
    batch = tab.gbs.value()
    assert tab.flush().estimate is not None
    assert tab.pin_baseline()
    panel.set_layout(generate("rail-optimized", system="dgx-h100", nodes=6, switch="qm9700"))
    other = tab.gbs.value()
    assert other != batch and tab.flush().estimate is not None
    text = tab.status.text()
    assert "Not like for like" in text and f"a batch of {batch} in the baseline, {other} here" \
        in text
    panel.set_layout(generate("rail-optimized", system="dgx-h100", nodes=8, switch="qm9700"))
    tab.gbs.setValue(batch)
    assert tab.flush().estimate is not None
    assert "Not like for like" not in tab.status.text()  # the same job: hardware alone
    tab.precision_combo.setCurrentText("fp8")
    assert tab.flush().estimate is not None
    assert "precision bf16 in the baseline, fp8 here" in tab.status.text()
