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
