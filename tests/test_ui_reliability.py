"""The live panel's Reliability tab on real widgets: interruptions and blast radius in the
summary, causes as bars, the ETTR curve with the interval in use marked at its top, the interval
and spares settings, and an edit assessed again when the tab is shown."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def _example(name: str):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


@pytest.fixture
def panel(qtbot):
    from rackdesigner.ui.panel import SimulationPanel

    p = SimulationPanel(_example("gb200-nvl72.yaml"), debounce_ms=0)
    qtbot.addWidget(p, before_close_func=lambda w: w.close_panel())
    p.resize(560, 900)
    p.show()
    p.tabs.setCurrentWidget(p.reliability_tab)
    p.reliability_tab.flush()
    return p


def test_the_tab_shows_causes_blast_radius_and_the_ettr_curve(panel):
    tab = panel.reliability_tab
    a = tab.assessment()
    assert a is not None
    text = tab.summary.text()
    assert "interruptions per day" in text and "MTBF" in text
    assert "up to <b>72</b> GPUs" in text  # the NVLink domain of the rack
    bars = tab.cause_bars()
    assert bars[0][0].startswith("GPU") and sum(v for _, v in bars) == pytest.approx(100)
    assert [v for _, v in bars] == sorted((v for _, v in bars), reverse=True)
    points = tab.curve_points()
    best = max(points, key=lambda p: p[1])
    # the optimum interval in use sits at the curve's top (within one step of the grid)
    assert a.ettr * 100 >= best[1] - 0.05
    assert "no storage system" in tab.basis.text()


def test_a_chosen_interval_and_spares_change_the_figures(panel, qtbot):
    tab = panel.reliability_tab
    best = tab.assessment().ettr
    tab.interval_spin.setValue(600)  # ten hours: far past the optimum
    tab.flush()
    a = tab.assessment()
    assert a.checkpoint.chosen and a.checkpoint.interval_s == 600 * 60
    assert a.ettr < best
    assert "(given)" in tab.summary.text()
    tab.spares_spin.setValue(8)  # fewer than the 72 GPUs one GPU fault stops
    tab.flush()
    assert tab.assessment().spares == 8
    assert tab.assessment().goodput < tab.assessment().ettr


def test_an_edit_made_while_hidden_is_assessed_when_shown(panel):
    tab = panel.reliability_tab
    before = tab.assessment().interruptions_per_day
    panel.tabs.setCurrentIndex(0)
    layout = panel.live.layout
    gpu = next(d.id for d in layout.devices() if layout.index().kind(d.id) == "gpu")
    for link in layout.links_of(gpu):
        layout.remove_link(link.id)
    layout.remove_device(gpu)
    assert tab.stale
    panel.tabs.setCurrentWidget(tab)
    tab.flush()
    assert not tab.stale
    assert tab.assessment().interruptions_per_day < before


def test_a_selected_part_says_what_its_fault_stops(panel):
    tab = panel.reliability_tab
    layout = panel.live.layout
    kind = layout.index().kind
    gpu = next(d.id for d in layout.devices() if kind(d.id) == "gpu")
    cpu = next(d.id for d in layout.devices() if kind(d.id) == "cpu")
    panel.set_selection([gpu])
    assert f"A fault of {gpu}" in tab.part.text() and "<b>72</b> GPUs" in tab.part.text()
    panel.set_selection([cpu])
    assert "<b>4</b> GPUs" in tab.part.text()  # its compute tray
    panel.set_selection([gpu, cpu])
    assert tab.part.text() == ""


def test_the_workload_tabs_job_gives_effective_tokens_days_and_dollars(panel):
    """The Reliability tab counts the Workload tab's job (no job of its own): its tokens/s,
    days and dollars with the work failures lose, updated when that job changes."""
    import re

    from rackdesigner.cost.compare import effective_cost_to_train

    tab = panel.reliability_tab
    assert "No job in the Workload tab" in tab.job_line.text()
    work = panel.workload
    work.model_combo.setCurrentText("llama3-8b")
    work.layout_combo.setCurrentText("manual")
    work.tp.setValue(4)
    work.gbs.setValue(64)
    work.gpus.setValue(64)
    estimate = work.flush().estimate
    assert estimate is not None and estimate.gpus == 64
    panel.cost_tab.flush()
    a = tab.flush().assessment
    assert a.job is not None and a.scope_gpus == 64  # the Workload tab's 64 GPUs, not all 72
    assert a.job.tokens_per_s == pytest.approx(estimate.tokens_per_s, rel=1e-9)
    assert a.effective_tokens_per_s == pytest.approx(estimate.tokens_per_s * a.goodput)
    assert a.effective_tokens_per_s < estimate.tokens_per_s  # failures cost time
    text = tab.job_line.text()
    assert "llama3-8b" in text and "effective tokens/s" in text
    bold = re.findall(r"<b>[^\d<]*([\d,.]+)(?: days)?</b>", text)  # tokens/s, days, $
    shown = [float(v.replace(",", "")) for v in bold]
    assert shown[0] == pytest.approx(a.effective_tokens_per_s, abs=0.5)
    days = a.effective_days()
    assert shown[1] == pytest.approx(days, abs=0.05)
    dollars = effective_cost_to_train(panel.cost_tab.report(), a)
    assert dollars is not None and dollars > panel.cost_tab.report().cost_to_train()
    assert shown[2] == pytest.approx(dollars, abs=0.5)
    # twice the tokens to train: twice the days, the same effective tokens/s
    work.tokens.setValue(2.0)
    work.flush()
    panel.cost_tab.flush()
    b = tab.flush().assessment
    assert b.effective_days() == pytest.approx(2 * days, rel=1e-6)
    assert b.effective_tokens_per_s == pytest.approx(a.effective_tokens_per_s)
    assert f"{2 * days:,.1f} days" in tab.job_line.text()
