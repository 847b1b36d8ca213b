"""A collective overlapped with compute runs longer than alone (hardware.OVERLAP_STRETCH, issue
33 W4): overlap hides less than the standalone time suggests, never more, and a job with
nothing overlapped does not move."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.workload import compute, estimate
from rackdesigner.workload import hardware as H


@pytest.fixture(scope="module")
def pod():
    return generate("rail-optimized", system="dgx-h100", nodes=8, switch="qm9700")


def _at(monkeypatch, stretch: float, *args, **kwargs):
    monkeypatch.setattr(H, "OVERLAP_STRETCH", stretch)
    compute.layer_times.cache_clear()
    return estimate(*args, **kwargs)


def test_a_longer_overlapped_collective_never_shortens_the_step(pod, monkeypatch):
    job = dict(gbs=64, sharding="full", profile="pytorch-fsdp", time_if_too_big=True)
    steps = [_at(monkeypatch, s, pod, "llama3-8b", **job) for s in (1.0, 1.2, 1.5, 2.0)]
    times = [e.step_time_s for e in steps]
    assert times == sorted(times) and times[-1] > times[0]
    # only the exposed communication moves: the compute is the same
    assert {round(e.breakdown["compute_s"], 9) for e in steps} == {
        round(steps[0].breakdown["compute_s"], 9)}


def test_a_job_with_nothing_overlapped_does_not_move(pod, monkeypatch):
    job = dict(gbs=64, tp=8, sharding="none", dp_overlap=False, profile="megatron-2021",
               sequence_parallel=False)
    a = _at(monkeypatch, 1.0, pod, "llama3-8b", **job)
    b = _at(monkeypatch, 1.5, pod, "llama3-8b", **job)
    assert a.step_time_s == pytest.approx(b.step_time_s)


def test_the_stretch_is_at_least_one():
    """Overlap cannot make a collective faster than it runs alone."""
    assert H.OVERLAP_STRETCH >= 1.0
