"""Quit answers at once: a simulation or a rule check running on a worker is stopped, and the
window says so, instead of the window sitting frozen until the run ends (25-45 s at 32k GPUs)."""

from __future__ import annotations

import threading
import time

import pytest
from designer_fixtures import make_window, small_layout

from rackdesigner.commands.failures import set_status

pytestmark = pytest.mark.slow  # large designs or many random edits


def _slow(started: threading.Event, ended: list, real):
    """A simulation that runs Python for 30 s first (a 32k-GPU design's, on this machine)."""

    def simulate(layout, *args, **kwargs):
        started.set()
        stop = time.monotonic() + 30
        while time.monotonic() < stop:
            pass
        ended.append(True)
        return real(layout, *args, **kwargs)

    return simulate


def test_quit_while_a_simulation_runs_stops_it_and_says_so(qtbot, tmp_path, monkeypatch):
    from rackdesigner.ui.panel import live as live_module

    window = make_window(qtbot, tmp_path, small_layout(), show=True)
    window.simulation_panel.flush()
    started, ended = threading.Event(), []
    monkeypatch.setattr(live_module, "simulate", _slow(started, ended, live_module.simulate))
    doc = window.document
    doc.push(set_status(doc.layout, ["gpu-1"], "failed"))  # a Fail: the panel simulates
    window.simulation_panel.live.request(immediate=True)
    assert started.wait(10)
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    doc.undo_stack.setClean()
    begin = time.monotonic()
    assert window.close()
    assert time.monotonic() - begin < 3.0  # not the 30 s the run would take
    assert not ended and window.simulation_panel.live.job.cancelled >= 1
    assert any("stopping the simulation" in text for text in said)
