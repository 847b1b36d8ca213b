"""The one background-job helper: debounce, snapshot on the GUI thread, newest result only,
errors reported (not swallowed, not raised into Qt)."""

from __future__ import annotations

import logging
import threading

import pytest
from designer_fixtures import small_layout

from rackdesigner.ui.jobs import BackgroundJob


@pytest.mark.slow
def test_a_burst_of_requests_is_one_run_on_the_state_of_its_start(qtbot):
    layout = small_layout()
    seen = []

    def work(snapshot, params):
        seen.append((threading.current_thread() is threading.main_thread(), snapshot.state))
        return snapshot.device_count()

    job = BackgroundJob(work, debounce_ms=50)
    job.set_layout(layout)
    for _ in range(5):
        job.request()
    with qtbot.waitSignal(job.result_ready, timeout=5000) as got:
        pass
    assert job.runs == 1 and seen == [(False, layout.state)]  # on a worker, one run
    assert got.args[0].value == layout.device_count() and got.args[0].ok
    job.close()


def test_an_error_in_the_work_is_logged_and_reported_not_raised(qtbot, caplog):
    def work(snapshot, params):
        raise ZeroDivisionError("a bug in a rule")

    job = BackgroundJob(work, debounce_ms=0)
    job.set_layout(small_layout())
    with caplog.at_level(logging.ERROR), qtbot.waitSignal(job.result_ready, timeout=5000) as got:
        job.request(immediate=True)
    assert got.args[0].error == "ZeroDivisionError: a bug in a rule"
    assert any("Traceback" in r.getMessage() for r in caplog.records)
    assert not job.busy
    job.close()


def test_problems_say_when_the_rules_could_not_be_checked(qtbot, monkeypatch):
    from rackdesigner.ui import problems as problems_module
    from rackdesigner.ui.problems import ProblemsWidget

    def broken(layout):
        raise KeyError("spec")

    monkeypatch.setattr(problems_module, "check_layout", broken)
    widget = ProblemsWidget()
    qtbot.addWidget(widget, before_close_func=lambda w: w.close_problems())
    with qtbot.waitSignal(widget.findings_changed, timeout=5000):
        widget.set_layout(small_layout())
    assert "could not be checked" in widget.summary.text() and "KeyError" in widget.summary.text()


def _spin(started: threading.Event, finished: list, seconds: float = 20.0):
    """Work that runs Python for `seconds` unless stopped (what a 32k-GPU simulation does)."""
    import time

    def work(snapshot, params):
        started.set()
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
        finished.append(n)
        return n

    return work


def test_closing_stops_a_long_run_at_once_instead_of_waiting_for_it(qtbot):
    import time

    started, finished = threading.Event(), []
    job = BackgroundJob(_spin(started, finished), debounce_ms=0)
    job.set_layout(small_layout())
    job.request(immediate=True)
    assert started.wait(5) and job.in_flight
    begin = time.monotonic()
    job.close()
    assert time.monotonic() - begin < 2.0  # the run takes 20 s
    assert job.cancelled == 1 and finished == []


def test_a_newer_request_stops_the_stale_run_and_its_result_comes_first(qtbot):
    started, finished = threading.Event(), []
    spin = _spin(started, finished)
    calls = []

    def work(snapshot, params):
        calls.append(params)
        return spin(snapshot, params) if params == "slow" else "quick"

    job = BackgroundJob(work, debounce_ms=0, cancel_stale=True)
    job.set_layout(small_layout())
    job.set_params("slow")
    job.request(immediate=True)
    assert started.wait(5)
    job.set_params("fast")
    with qtbot.waitSignal(job.result_ready, timeout=5000) as got:
        job.request(immediate=True)  # the slow run is stale: stopped, not waited for
    assert got.args[0].value == "quick" and job.cancelled == 1 and job.dropped == 1
    assert finished == [] and calls == ["slow", "fast"]
    job.close()


def test_a_cancel_that_comes_after_the_run_never_reaches_later_code():
    from rackdesigner.ui.jobs import Worker

    worker = Worker()
    ok, value = worker.run(lambda: 41 + 1)
    assert (ok, value) == (True, 42) and not worker.cancel()  # nothing to stop any more
    total = sum(range(100_000))  # would raise here if a cancel had been left pending
    assert total > 0 and worker.run(lambda: "again") == (True, "again")


def test_a_cancel_waits_until_the_worker_is_out_of_an_import(tmp_path, monkeypatch):
    """An import holds a module lock in Python code: a run stopped inside one left the lock
    held, and the next import of that module hung the designer. The cancel lands after it."""
    import importlib
    import sys
    import time

    from rackdesigner.ui.jobs import Worker

    (tmp_path / "slow_import_for_cancel.py").write_text(
        "import time\nend = time.monotonic() + 0.5\nwhile time.monotonic() < end:\n"
        "    pass\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("slow_import_for_cancel", None)
    worker, started, out = Worker(), threading.Event(), []

    def work():
        started.set()
        module = importlib.import_module("slow_import_for_cancel")
        end = time.monotonic() + 20
        while time.monotonic() < end:  # then a long computation, where the cancel lands
            pass
        return module.VALUE

    thread = threading.Thread(target=lambda: out.append(worker.run(work)))
    thread.start()
    assert started.wait(5)
    time.sleep(0.1)  # inside the module's body now
    assert worker.cancel()
    thread.join(10)
    assert out == [(False, None)]  # stopped in the computation...
    assert "slow_import_for_cancel" in sys.modules  # ...after the import had finished
    assert importlib.import_module("slow_import_for_cancel").VALUE == 7


def test_a_soon_request_runs_once_the_edit_is_whole_without_the_debounce(qtbot):
    """A Fail is one discrete edit: its run starts at the GUI thread's next idle moment (after
    the command's last event), not after the debounce; a debounced request waiting already
    is not cut short by it (a gesture's stream stays one run)."""
    from rackdesigner.commands import History
    from rackdesigner.commands.failures import set_status

    layout = small_layout()
    history = History(layout)
    seen = []
    job = BackgroundJob(lambda snapshot, params: seen.append(snapshot.state), debounce_ms=60_000)
    job.set_layout(layout)
    device = next(iter(layout.devices())).id
    layout.subscribe(lambda event: job.request(soon=True))
    history.push(set_status(layout, [device], "failed"))
    assert job.runs == 0  # not inside the push
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=5000)
    assert seen == [layout.state]  # the state after the whole command
    job.request()  # debounced (a minute)...
    job.request(soon=True)  # ...and joined, not cut short
    qtbot.wait(50)
    assert job.runs == 1 and job.busy
    job.close()


def test_the_live_panel_runs_a_fail_at_once_and_debounces_other_edits(qtbot):
    from rackdesigner.commands import History
    from rackdesigner.commands.edits import change_link
    from rackdesigner.commands.failures import set_status
    from rackdesigner.ui.panel.live import LiveSimulation

    layout = small_layout()
    history = History(layout)
    live = LiveSimulation(layout, debounce_ms=60_000)
    qtbot.waitUntil(lambda: live.runs == 1 and not live.job.in_flight, timeout=10_000)
    device = next(iter(layout.devices()))
    history.push(set_status(layout, [device.id], "failed"))
    qtbot.waitUntil(lambda: live.runs == 2, timeout=10_000)  # no minute's debounce
    qtbot.waitUntil(lambda: not live.job.in_flight, timeout=10_000)
    link = next(iter(layout.links()))
    history.push(change_link(link.id, length_m=7.0))  # debounced (a minute)
    history.push(set_status(layout, [device.id], "active"))  # joins the waiting request
    qtbot.wait(50)
    assert live.runs == 2 and live.busy
    live.job.close()


def test_a_run_yields_to_the_job_it_is_told_to_for_a_while_not_for_ever(qtbot, monkeypatch):
    from rackdesigner.ui import jobs

    monkeypatch.setattr(jobs, "YIELD_MAX_MS", 200)
    layout = small_layout()
    first_busy = [True]
    job = BackgroundJob(lambda snapshot, params: snapshot.revision, debounce_ms=0)
    job.set_layout(layout)
    job.yield_to = lambda: first_busy[0]
    job.request(immediate=True)  # immediate: starts now whatever the other does
    assert job.runs == 1
    qtbot.waitUntil(lambda: not job.busy, timeout=5000)
    job.request()
    qtbot.wait(30)
    assert job.runs == 1 and job.busy  # waits while the other is busy...
    first_busy[0] = False
    qtbot.waitUntil(lambda: job.runs == 2, timeout=5000)  # ...and starts once it is not
    qtbot.waitUntil(lambda: not job.busy, timeout=5000)
    first_busy[0] = True  # busy for good: the run starts after YIELD_MAX_MS all the same
    with qtbot.waitSignal(job.result_ready, timeout=5000):
        job.request()
    assert job.runs == 3
    job.close()


def test_the_window_shows_problems_before_the_panel_runs_after_an_edit(qtbot, tmp_path):
    """The panel's run yields to the Problems check: after an edit the findings of the new
    revision are shown before the panel's run of it starts."""
    from PySide6.QtCore import QSettings

    from rackdesigner.commands.edits import change_link
    from rackdesigner.ui import MainWindow

    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    doc, live, problems = window.document, window.simulation_panel.live, window.problems
    doc.set_layout(small_layout(), None)
    qtbot.waitUntil(lambda: not live.busy and not problems.busy, timeout=20_000)
    seen = []
    real_work = live.job.work

    def work(snapshot, params):  # on the worker: were that revision's findings shown?
        seen.append(problems.shown_revision == snapshot.revision)
        return real_work(snapshot, params)

    live.job.work = work
    link = next(iter(doc.layout.links()))
    doc.push(change_link(link.id, length_m=9.0))
    doc.undo_stack.setClean()  # closing asks nothing
    qtbot.waitUntil(lambda: bool(seen) and not live.busy and not problems.busy, timeout=20_000)
    assert seen == [True] and problems.shown_revision == doc.layout.revision


def test_an_idle_request_is_busy_at_once_and_runs_when_the_event_loop_turns(qtbot):
    """A design just opened: its run waits for the event loop (the views' first paint comes
    first) on the state it then finds, and says busy meanwhile."""
    layout = small_layout()
    job = BackgroundJob(lambda snapshot, params: snapshot.device_count(), debounce_ms=10_000)
    job.set_layout(layout)
    job.request(immediate=True, idle=True)
    assert job.busy and job.runs == 0 and not job.in_flight
    with qtbot.waitSignal(job.result_ready, timeout=5000) as got:
        pass  # long before the 10 s debounce
    assert job.runs == 1 and got.args[0].value == layout.device_count() and not job.busy
    job.close()
