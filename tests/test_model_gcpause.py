"""Holding off the garbage collector while a design is built: nested and overlapping pauses
give the collector back exactly as it was, and a freeze asked for is done when the last ends."""

from __future__ import annotations

import gc
import threading

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
