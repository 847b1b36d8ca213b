"""Holding off the garbage collector while a design is built: nested and overlapping pauses
give the collector back exactly as it was, and a freeze asked for is done when the last ends."""

from __future__ import annotations

import gc
import threading

import pytest

from rackdesigner.model.gcpause import gc_paused


def test_pauses_nest_and_overlap_across_threads_and_restore_the_collector():
    assert gc.isenabled()
    inner_started, release = threading.Event(), threading.Event()

    def other_thread() -> None:
        with gc_paused():
            inner_started.set()
            release.wait(10)

    with gc_paused():
        assert not gc.isenabled()
        worker = threading.Thread(target=other_thread)
        worker.start()
        assert inner_started.wait(10)
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still on
    release.set()
    worker.join(10)
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.slow
def test_a_freeze_asked_by_any_pause_happens_when_the_last_one_ends():
    gc.unfreeze()
    try:
        with gc_paused():
            with gc_paused(freeze=True):
                kept = [object() for _ in range(10)]
            assert gc.get_freeze_count() == 0
        assert gc.get_freeze_count() > 0 and kept
        gc.unfreeze()
        with gc_paused():
            pass
        assert gc.get_freeze_count() == 0  # asked once, done once
    finally:
        gc.unfreeze()


@pytest.mark.slow
def test_a_worker_run_on_a_large_design_gives_the_collector_back(qtbot, catalog):
    """Runs hold the collector off and freeze what they leave on large designs; after the
    run (even one that failed) the collector runs again as before."""
    from rackdesigner.generators import generate
    from rackdesigner.ui.jobs import FREEZE_MIN_DEVICES, BackgroundJob

    layout = generate("superpod", system="dgx-h100", sus=2, catalog=catalog)
    assert layout.device_count() >= FREEZE_MIN_DEVICES
    seen: list[bool] = []

    def work(snapshot, params):
        seen.append(gc.isenabled())
        if params == "fail":
            raise RuntimeError("a bug in the work")
        return snapshot.index().counts()

    gc.unfreeze()
    try:
        for params in (None, "fail"):
            job = BackgroundJob(work, debounce_ms=0)
            job.set_layout(layout)
            job.set_params(params)
            job.request(immediate=True)
            result = job.flush()
            assert result is not None and result.ok == (params is None)
            job.close()
        assert seen == [False, False] and gc.isenabled()
        assert gc.get_freeze_count() > 0  # the run's index: out of later collections
    finally:
        gc.unfreeze()


def test_the_library_leaves_the_collector_alone(monkeypatch, tmp_path):
    """Issue 23 §5: loading, checking, simulating, generating and the graph build never switch
    the collector off or freeze the heap; the entry points decide (CLI, designer, sweep)."""
    from rackdesigner.generators import generate
    from rackdesigner.io import load_layout, save_layout
    from rackdesigner.model import check_layout
    from rackdesigner.simulation import simulate

    touched: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: touched.append("disable"))
    monkeypatch.setattr(gc, "freeze", lambda: touched.append("freeze"))
    layout = generate("superpod", system="dgx-h100", sus=1)
    path = tmp_path / "pod.yaml"
    save_layout(layout, path)
    loaded = load_layout(path)
    check_layout(loaded)
    simulate(loaded)
    assert loaded.graph.number_of_nodes() == loaded.device_count()
    assert touched == []


def test_a_cli_verb_runs_with_the_collector_held_and_gives_it_back(monkeypatch, capsys):
    from rackdesigner._resources import example_paths
    from rackdesigner.cli import main
    from rackdesigner.model import check_layout

    seen: list[bool] = []

    def spy(layout):
        seen.append(gc.isenabled())
        return check_layout(layout)

    monkeypatch.setattr("rackdesigner.cli.validate_cmd.check_layout", spy)
    example = next(p for p in example_paths() if "dgx-h100-2node" in p.name)
    assert main(["validate", str(example)]) == 0
    assert seen == [False]
    assert gc.isenabled()
    capsys.readouterr()


def test_a_sweep_point_runs_with_the_collector_held(monkeypatch):
    from rackdesigner.sweep import runner

    seen: list[bool] = []
    monkeypatch.setattr(runner, "evaluate_point",
                        lambda spec, index, params: seen.append(gc.isenabled()) or {})
    runner.run_point(None, 0, {})
    assert seen == [False] and gc.isenabled()
