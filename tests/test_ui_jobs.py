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
